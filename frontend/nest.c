/* frontend/nest.c: lifting a kernel into its nest (nest.h). One walk over the kernel body's
 * statements classifies each: a thread-map axis, a flat index split by / and %, a uniform local, a
 * local derived from the axes, a guard, the accumulator, the prologue, the reduction loop, the
 * epilogue. Index expressions are read into linear forms over the axes by `lin`, which refuses
 * anything else with the construct and its place. */
#include "frontend/nest.h"

#include <stdlib.h>
#include <string.h>

#include "frontend/affine.h"
#include "frontend/loops.h"

#define HW_T 1000   /* pseudo-variables while reading the thread map: threadIdx.d = HW_T + d */
#define HW_B 1010   /* blockIdx.d = HW_B + d */

/* LOC_HW: a name for threadIdx.d or blockIdx.d (`int tx = threadIdx.x;`), read only where a thread
 * map is built from it (hw_aliases_used checks). */
typedef enum { LOC_AXIS, LOC_FLAT, LOC_DERIVED, LOC_UNIFORM, LOC_TEMP, LOC_ACC, LOC_HW } LocKind;

typedef struct Local {
  uint32_t name_at;          /* start byte of the declaring identifier */
  const char *name;
  LocKind kind;
  int axis;                  /* LOC_AXIS: index into axes */
  KrNestForm form;           /* LOC_DERIVED, LOC_FLAT, LOC_HW: the value */
  TSNode decl;
  bool in_loop;              /* LOC_DERIVED: declared in the loop body (a temporary the emitters keep there) */
} Local;

/* One part of a split flat index: its axis, divisor (an inner or middle part's modulus) and a middle
 * part's step, as forms. */
typedef struct Part {
  int axis;
  const char *flat;
  KrNestForm *div, *step;
} Part;

typedef struct Lift {
  const KrTree *t;
  const KrKernel *k;
  KrArena *a;
  KrDiags *d;
  KrNest *n;
  KrLoops *lx;               /* compile-time constants */
  KrVec(Local) locals;
  KrVec(uint32_t) muts;      /* name_at of every local assigned or incremented after its declaration */
  KrVec(Part) parts;         /* the parts of split flat indices */
  const char *why;
  uint32_t at;
  bool in_loop;
  bool batch_ok;             /* the kernel uses no threadIdx.z: blockIdx.z is a batch index (KrNest.batch) */
} Lift;

/* ---- Small tree helpers ----------------------------------------------------------------------- */

static bool is(const Lift *L, TSNode n, TSSymbol s) { return !ts_node_is_null(n) && ts_node_symbol(n) == s; }

static const char *text(Lift *L, TSNode n) { return kr_node_text_flat(L->t, n, L->a); }

static bool set(TSNode n) { return !ts_node_is_null(n); }

static TSNode unparen(Lift *L, TSNode n) { return kr_node_strip_parens(L->t, n); }

static const char *op_of(Lift *L, TSNode n) { return kr_node_operator(L->t, n, L->a); }

static TSNode field(TSNode n, const char *name) { return kr_node_field(n, name); }

static bool fail(Lift *L, TSNode at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(Lift *L, TSNode at, const char *fmt, ...) {
  if (L->why) return false;
  va_list ap;
  va_start(ap, fmt);
  L->why = kr_arena_vprintf(L->a, fmt, ap);
  va_end(ap);
  L->at = ts_node_is_null(at) ? L->k->span.start : ts_node_start_byte(at);
  return false;
}

/* ---- Linear forms ------------------------------------------------------------------------------ */

static int sym_cmp(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

static int term_cmp(const KrNestTerm *x, const KrNestTerm *y) {
  if (x->var != y->var) return x->var < y->var ? -1 : 1;
  if (x->nsyms != y->nsyms) return x->nsyms < y->nsyms ? -1 : 1;
  for (int i = 0; i < x->nsyms; i++) {
    int c = strcmp(x->syms[i], y->syms[i]);
    if (c) return c;
  }
  return 0;
}

static int term_qcmp(const void *x, const void *y) { return term_cmp(x, y); }

static void normalise(KrNestForm *f) {
  for (size_t i = 0; i < f->terms.len; i++)
    qsort(f->terms.data[i].syms, (size_t)f->terms.data[i].nsyms, sizeof(char *), sym_cmp);
  if (f->terms.len) qsort(f->terms.data, f->terms.len, sizeof *f->terms.data, term_qcmp);
  size_t w = 0;
  for (size_t i = 0; i < f->terms.len; i++) {
    if (w && term_cmp(&f->terms.data[w - 1], &f->terms.data[i]) == 0) f->terms.data[w - 1].coef += f->terms.data[i].coef;
    else f->terms.data[w++] = f->terms.data[i];
  }
  f->terms.len = w;
  w = 0;
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].coef != 0) f->terms.data[w++] = f->terms.data[i];
  f->terms.len = w;
}

static KrNestForm *form_new(Lift *L) { return kr_arena_alloc(L->a, sizeof(KrNestForm)); }

static KrNestForm *single(Lift *L, long long c, int var, const char *sym) {
  KrNestForm *f = form_new(L);
  KrNestTerm t = {.coef = c, .var = var};
  if (sym) t.syms[t.nsyms++] = sym;
  kr_vec_push(L->a, &f->terms, t);
  normalise(f);
  return f;
}

static KrNestForm *add(Lift *L, const KrNestForm *x, const KrNestForm *y, int sign) {
  KrNestForm *f = form_new(L);
  for (size_t i = 0; i < x->terms.len; i++) kr_vec_push(L->a, &f->terms, x->terms.data[i]);
  for (size_t i = 0; i < y->terms.len; i++) {
    KrNestTerm t = y->terms.data[i];
    t.coef *= sign;
    kr_vec_push(L->a, &f->terms, t);
  }
  normalise(f);
  return f;
}

static bool has_var(const KrNestForm *f) {
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].var >= 0) return true;
  return false;
}

static KrNestForm *mul(Lift *L, const KrNestForm *x, const KrNestForm *y, TSNode at) {
  if (has_var(x) && has_var(y)) {
    fail(L, at, "'%s' multiplies two axes", text(L, at));
    return NULL;
  }
  KrNestForm *f = form_new(L);
  for (size_t i = 0; i < x->terms.len; i++)
    for (size_t j = 0; j < y->terms.len; j++) {
      const KrNestTerm *p = &x->terms.data[i], *q = &y->terms.data[j];
      if (p->nsyms + q->nsyms > KR_NEST_MAX_SYMS) {
        fail(L, at, "'%s' has too many symbolic factors", text(L, at));
        return NULL;
      }
      KrNestTerm t = {.coef = p->coef * q->coef, .var = p->var >= 0 ? p->var : q->var};
      for (int s = 0; s < p->nsyms; s++) t.syms[t.nsyms++] = p->syms[s];
      for (int s = 0; s < q->nsyms; s++) t.syms[t.nsyms++] = q->syms[s];
      kr_vec_push(L->a, &f->terms, t);
    }
  normalise(f);
  return f;
}

static Local *local_of(Lift *L, TSNode id) {
  KrBinding b = kr_resolve(L->t, L->k, id);
  if (b.kind != KR_BIND_LOCAL || ts_node_is_null(b.name)) return NULL;
  uint32_t at = ts_node_start_byte(b.name);
  for (size_t i = 0; i < L->locals.len; i++)
    if (L->locals.data[i].name_at == at) return &L->locals.data[i];
  return NULL;
}

static bool mutated(const Lift *L, uint32_t name_at) {
  for (size_t i = 0; i < L->muts.len; i++)
    if (L->muts.data[i] == name_at) return true;
  return false;
}

static bool integer_param(const KrParam *p) {
  static const char *const ints[] = {"int", "unsigned", "unsigned int", "long", "long long", "size_t",
                                     "int64_t", "int32_t", "uint32_t", "uint64_t", "unsigned long",
                                     "short", "unsigned long long", "ptrdiff_t"};
  if (p->pointer_depth) return false;
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (strcmp(p->base, ints[i]) == 0) return true;
  return false;
}

static KrNestForm *lin(Lift *L, TSNode n);

static KrNestForm *lin_ident(Lift *L, TSNode n) {
  const char *name = kr_node_text(L->t, n, L->a);
  KrBinding b = kr_resolve(L->t, L->k, n);
  if (b.kind == KR_BIND_PARAM) {
    if (!integer_param(&L->k->params.data[b.param]))
      return fail(L, n, "'%s' is not an integer parameter", name), NULL;
    return single(L, 1, -1, name);
  }
  if (b.kind == KR_BIND_NONE) {   /* a macro or a global constant */
    long long v;
    bool known = false;
    for (size_t i = 0; i < L->n->consts.len; i++) known |= strcmp(L->n->consts.data[i].name, name) == 0;
    if (!known && kr_loops_const(L->lx, n, &v)) {
      KrNestConst c = {.name = name, .value = v};
      kr_vec_push(L->a, &L->n->consts, c);
    }
    return single(L, 1, -1, name);
  }
  if (b.kind != KR_BIND_LOCAL) return fail(L, n, "'%s' is a lambda parameter", name), NULL;
  Local *lo = local_of(L, n);
  if (!lo) {
    for (int r = 0; L->n->reduce >= 0 && r < L->n->nreduce; r++)
      if (strcmp(name, L->n->axes.data[L->n->reduce + r].name) == 0) return single(L, 1, L->n->reduce + r, NULL);
    return fail(L, n, "'%s' is a local the nest does not read (declared inside the computation, "
                      "or assigned more than once)", name), NULL;
  }
  switch (lo->kind) {
  case LOC_AXIS: return single(L, 1, lo->axis, NULL);
  case LOC_DERIVED: return &lo->form;
  case LOC_UNIFORM: return single(L, 1, -1, name);
  case LOC_FLAT: return &lo->form;
  case LOC_HW: return &lo->form;
  default: return fail(L, n, "'%s' is not an index value", name), NULL;
  }
}

static KrNestForm *lin_field(Lift *L, TSNode n) {
  TSNode arg = field(n, "argument"), fld = field(n, "field");
  const char *o = kr_node_text(L->t, arg, L->a), *f = kr_node_text(L->t, fld, L->a);
  int d = strcmp(f, "x") == 0 ? 0 : strcmp(f, "y") == 0 ? 1 : strcmp(f, "z") == 0 ? 2 : -1;
  if (d >= 0 && (strcmp(o, "blockDim") == 0 || strcmp(o, "gridDim") == 0))
    return single(L, 1, -1, kr_arena_printf(L->a, "%s.%s", o, f));
  if (d >= 0 && strcmp(o, "threadIdx") == 0) return single(L, 1, HW_T + d, NULL);
  if (d == 2 && strcmp(o, "blockIdx") == 0 && L->batch_ok) {   /* a batch index: uniform over the block */
    L->n->batch = true;
    return single(L, 1, -1, "blockIdx.z");
  }
  if (d >= 0 && strcmp(o, "blockIdx") == 0) return single(L, 1, HW_B + d, NULL);
  return fail(L, n, "'%s' is not an index the nest reads", text(L, n)), NULL;
}

static KrNestForm *lin(Lift *L, TSNode n) {
  const KrSyms *s = &L->t->sym;
  n = unparen(L, n);
  TSSymbol y = ts_node_symbol(n);
  if (y == s->number_literal) {
    const char *t = kr_node_text(L->t, n, L->a);
    char *end;
    long long v = strtoll(t, &end, 0);
    while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L') end++;
    if (*end) return fail(L, n, "'%s' is not an integer", t), NULL;
    return single(L, v, -1, NULL);
  }
  if (y == s->identifier) return lin_ident(L, n);
  if (y == s->field_expression) return lin_field(L, n);
  if (y == s->cast_expression) return lin(L, field(n, "value"));
  if (y == s->unary_expression && strcmp(op_of(L, n), "-") == 0) {
    KrNestForm *v = lin(L, field(n, "argument"));
    return v ? mul(L, v, single(L, -1, -1, NULL), n) : NULL;
  }
  if (y == s->binary_expression) {
    const char *op = op_of(L, n);
    KrNestForm *x = lin(L, field(n, "left"));
    KrNestForm *z = x ? lin(L, field(n, "right")) : NULL;
    if (!z) return NULL;
    if (strcmp(op, "+") == 0) return add(L, x, z, 1);
    if (strcmp(op, "-") == 0) return add(L, x, z, -1);
    if (strcmp(op, "*") == 0) return mul(L, x, z, n);
    if (!has_var(x) && !has_var(z))   /* a uniform value: keep it as one symbol */
      return single(L, 1, -1, kr_arena_printf(L->a, "(%s)", text(L, n)));
    return fail(L, n, "'%s' is not linear in the axes ('%s')", text(L, n), op), NULL;
  }
  return fail(L, n, "'%s' is not an index expression the nest reads", text(L, n)), NULL;
}

/* ---- Form questions ------------------------------------------------------------------------------- */

static void term_text(KrBuf *b, const KrNestTerm *t, const char *var, bool first) {
  long long c = t->coef;
  if (!first) kr_buf_puts(b, c < 0 ? " - " : " + ");
  else if (c < 0) kr_buf_puts(b, "-");
  if (c < 0) c = -c;
  bool any = false;
  if (c != 1 || (t->nsyms == 0 && !var)) kr_buf_printf(b, "%lld", c), any = true;
  for (int i = 0; i < t->nsyms; i++) kr_buf_printf(b, "%s%s", any ? " * " : "", t->syms[i]), any = true;
  if (var) kr_buf_printf(b, "%s%s", any ? " * " : "", var);
}

const char *kr_nest_coef_text(const KrNestForm *f, int axis, KrArena *arena) {
  KrBuf b = {0};
  bool first = true;
  for (size_t i = 0; i < f->terms.len; i++) {
    if (f->terms.data[i].var != axis) continue;
    term_text(&b, &f->terms.data[i], NULL, first);
    first = false;
  }
  const char *r = kr_arena_strdup(arena, b.data ? b.data : "0");
  kr_buf_free(&b);
  return r;
}

bool kr_nest_coef_is(const KrNestForm *f, int axis, long long c) {
  size_t n = 0;
  long long v = 0;
  for (size_t i = 0; i < f->terms.len; i++) {
    if (f->terms.data[i].var != axis) continue;
    if (f->terms.data[i].nsyms) return false;
    v += f->terms.data[i].coef;
    n++;
  }
  return n <= 1 && v == c;
}

bool kr_nest_form_offset(const KrNestForm *a, const KrNestForm *b, long long *d) {
  long long ca = 0, cb = 0;
  size_t i = 0, j = 0;
  for (;;) {   /* both are normalised: walk the terms that are not pure constants in step */
    while (i < a->terms.len && a->terms.data[i].var < 0 && a->terms.data[i].nsyms == 0) ca += a->terms.data[i++].coef;
    while (j < b->terms.len && b->terms.data[j].var < 0 && b->terms.data[j].nsyms == 0) cb += b->terms.data[j++].coef;
    if (i == a->terms.len || j == b->terms.len) break;
    if (term_cmp(&a->terms.data[i], &b->terms.data[j]) != 0 || a->terms.data[i].coef != b->terms.data[j].coef) return false;
    i++, j++;
  }
  if (i != a->terms.len || j != b->terms.len) return false;
  *d = ca - cb;
  return true;
}

const char *kr_nest_form_text(const KrNest *n, const KrNestForm *f, KrArena *arena) {
  KrBuf b = {0};
  for (size_t i = 0; i < f->terms.len; i++) {
    int v = f->terms.data[i].var;
    term_text(&b, &f->terms.data[i], v >= 0 ? n->axes.data[v].name : NULL, i == 0);
  }
  const char *r = kr_arena_strdup(arena, b.data ? b.data : "0");
  kr_buf_free(&b);
  return r;
}

const char *kr_nest_form_text_at(const KrNestForm *f, const char *const *value, KrArena *arena) {
  KrBuf b = {0};
  for (size_t i = 0; i < f->terms.len; i++) {
    int v = f->terms.data[i].var;
    term_text(&b, &f->terms.data[i], v >= 0 ? kr_arena_printf(arena, "(%s)", value[v]) : NULL, i == 0);
  }
  const char *r = kr_arena_strdup(arena, b.data ? b.data : "0");
  kr_buf_free(&b);
  return r;
}

/* ---- Scanning the body once --------------------------------------------------------------------------- */

static const char *const kRefused[] = {"atomic", "__syncthreads", "__syncwarp", "__shfl", "__ballot",
                                       "__any", "__all", "__threadfence", "cooperative_groups", "__activemask"};

/* Whether n lies inside a loop of the kernel. */
static bool in_loop(Lift *L, TSNode n) {
  const KrSyms *s = &L->t->sym;
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p) && !ts_node_eq(p, L->k->node); p = ts_node_parent(p))
    if (is(L, p, s->for_statement) || is(L, p, s->while_statement) || is(L, p, s->do_statement)) return true;
  return false;
}

/* Records mutated locals, and refuses constructs the nest does not model. */
static bool scan(Lift *L, TSNode n) {
  const KrSyms *s = &L->t->sym;
  TSSymbol y = ts_node_symbol(n);
  if (y == s->assignment_expression || y == s->update_expression) {
    TSNode target = unparen(L, field(n, y == s->update_expression ? "argument" : "left"));
    if (is(L, target, s->identifier)) {
      KrBinding b = kr_resolve(L->t, L->k, target);
      if (b.kind == KR_BIND_LOCAL && !ts_node_is_null(b.name)) kr_vec_push(L->a, &L->muts, ts_node_start_byte(b.name));
      if (b.kind == KR_BIND_PARAM) return fail(L, n, "parameter '%s' is assigned", text(L, target));
    }
  }
  if (y == s->call_expression) {
    const char *callee = text(L, field(n, "function"));
    for (size_t i = 0; i < sizeof kRefused / sizeof kRefused[0]; i++)
      if (strncmp(callee, kRefused[i], strlen(kRefused[i])) == 0)
        return fail(L, n, "'%s' is a call the nest does not model (atomics, barriers and warp "
                          "intrinsics are left to text passes)", callee);
    const char *name = kr_node_callee(L->t, n, L->a);
    if (name && kr_loops_is_macro(L->lx, name))
      return fail(L, n, "'%s' calls macro '%s', whose expansion the nest does not see (expand_macros writes it "
                        "out first)", text(L, n), name);
    /* A helper of the file is read when it only computes a value; outside every loop (the prologue
     * and the epilogue, which the schedules run once an output under the kernel's guard, as fuse's
     * pooling epilogue), also when it touches memory, but not when it needs the block's threads. */
    TSNode fn = name ? kr_tree_function(L->t, name) : (TSNode){0};
    bool collective = false;
    const char *why = ts_node_is_null(fn) ? NULL : kr_tree_function_effect(L->t, fn, &collective, L->a);
    if (why && (collective || in_loop(L, n)))
      return fail(L, n, "'%s' calls function '%s' of this file, which the nest cannot move: %s", text(L, n), name, why);
  }
  if (y == s->gnu_asm_expression) return fail(L, n, "inline assembly");
  if (y == s->pointer_expression && strcmp(op_of(L, n), "&") == 0) {
    TSNode arg = unparen(L, field(n, "argument"));
    if (is(L, arg, s->identifier)) return fail(L, n, "the address of '%s' is taken", text(L, arg));
  }
  if (y == s->while_statement || y == s->do_statement || y == s->for_range_loop)
    return fail(L, n, "a loop other than a counted for loop");
  KrChildren it;
  for (TSNode c = kr_children_first(&it, n); !ts_node_is_null(c); c = kr_children_next(&it))
    if (!scan(L, c)) {
      kr_children_end(&it);
      return false;
    }
  kr_children_end(&it);
  return true;
}

/* ---- Declarations before the computation ---------------------------------------------------------------- */

static KrNestAxis *new_axis(Lift *L, const char *name, KrAxisKind kind, TSNode at) {
  KrNestAxis ax = {.name = name, .kind = kind, .dim = -1, .lo = "0", .at = ts_node_start_byte(at)};
  kr_vec_push(L->a, &L->n->axes, ax);
  return &L->n->axes.data[L->n->axes.len - 1];
}

/* `blockIdx.d * B + threadIdx.d`, B being blockDim.d (*sym), or a block size the map fixes: a literal,
 * or a name bound to a constant the file shows (a #define, a const or constexpr integer), in
 * *lit; the nest then reads the kernel for launches whose blocks are that size, as the kernel
 * itself does. */
static bool thread_map(const KrNest *n, const KrNestForm *f, int *dim, long long *lit, const char **sym,
                       const char **named) {
  if (f->terms.len != 2) return false;
  const KrNestTerm *b = &f->terms.data[0], *t = &f->terms.data[1];
  if (t->var < HW_T || t->var >= HW_T + 3 || b->var < HW_B || b->var >= HW_B + 3) {
    const KrNestTerm *x = b;
    b = t, t = x;
  }
  if (t->var < HW_T || t->var >= HW_T + 3 || t->coef != 1 || t->nsyms) return false;
  int d = t->var - HW_T;
  if (b->var != HW_B + d) return false;
  *dim = d;
  *lit = 0, *sym = NULL, *named = NULL;
  if (b->nsyms == 0) return *lit = b->coef, b->coef > 0;
  if (b->nsyms != 1) return false;
  for (size_t i = 0; i < n->consts.len; i++)
    if (strcmp(n->consts.data[i].name, b->syms[0]) == 0) {
      *lit = b->coef * n->consts.data[i].value;
      if (b->coef == 1) *named = b->syms[0];
      return *lit > 0;
    }
  if (b->coef != 1) return false;
  *sym = b->syms[0];
  static const char *const dims[] = {"blockDim.x", "blockDim.y", "blockDim.z"};
  return strcmp(*sym, dims[d]) == 0;
}

/* `flat / div`, `flat % div` or `(flat / step) % div` with flat a thread-map axis (or the part of
 * another split) and div, step uniform. */
static bool split_axis(Lift *L, TSNode v, const char *name, TSNode decl) {
  const KrSyms *s = &L->t->sym;
  v = unparen(L, v);
  if (!is(L, v, s->binary_expression)) return false;
  const char *op = op_of(L, v);
  if (strcmp(op, "/") && strcmp(op, "%")) return false;
  TSNode left = unparen(L, field(v, "left")), step = {0};
  if (op[0] == '%' && is(L, left, s->binary_expression) && strcmp(op_of(L, left), "/") == 0) {
    step = field(left, "right");   /* (flat / step) % div: a middle part */
    left = unparen(L, field(left, "left"));
  }
  if (!is(L, left, s->identifier)) return false;
  Local *fl = local_of(L, left);
  if (!fl || (fl->kind != LOC_AXIS && fl->kind != LOC_FLAT)) return false;
  Lift probe = *L;
  probe.why = NULL;
  KrNestForm *div = lin(&probe, field(v, "right"));
  if (!div || has_var(div)) return false;
  KrNestForm *stepf = set(step) ? lin(&probe, step) : NULL;
  if (set(step) && (!stepf || has_var(stepf))) return false;
  const char *flat = fl->name;
  if (fl->kind == LOC_AXIS) {   /* the flat index stops being an axis; its parts are */
    int ax = fl->axis;
    fl->kind = LOC_FLAT;
    kr_vec_push(L->a, &L->n->flats, fl->decl);
    L->n->axes.data[ax].flat = "";   /* marked: removed when the nest is complete */
    fl->form = (KrNestForm){0};
  }
  KrNestAxis *ax = new_axis(L, name, KR_AXIS_PARALLEL, decl);
  ax->flat = flat;
  ax->div = text(L, field(v, "right"));
  ax->step = set(step) ? text(L, step) : NULL;
  ax->div_node = field(v, "right");
  ax->outer = op[0] == '/';
  Part part = {.axis = (int)L->n->axes.len - 1, .flat = flat, .div = div, .step = stepf};
  kr_vec_push(L->a, &L->parts, part);
  const KrNestAxis *whole = NULL;   /* the flat index's own axis, bounded when a guard came first */
  for (size_t i = 0; i < L->n->axes.len; i++)
    if (strcmp(L->n->axes.data[i].name, flat) == 0) {
      whole = &L->n->axes.data[i];
      ax->dim = whole->dim, ax->block = whole->block;
    }
  if (!ax->outer) ax->hi = ax->div, ax->hi_node = field(v, "right");
  else if (whole && whole->hi) ax->hi = kr_arena_printf(L->a, "((%s) + (%s) - 1) / (%s)", whole->hi, ax->div, ax->div), ax->hi_node = whole->hi_node;
  return true;
}

static bool uniform_expr(Lift *L, TSNode n) {
  const KrSyms *s = &L->t->sym;
  TSSymbol y = ts_node_symbol(n);
  if (y == s->subscript_expression || y == s->pointer_expression || y == s->assignment_expression ||
      y == s->update_expression)
    return false;
  if (y == s->identifier) {
    KrBinding b = kr_resolve(L->t, L->k, n);
    if (b.kind == KR_BIND_PARAM) return L->k->params.data[b.param].pointer_depth == 0;
    if (b.kind == KR_BIND_NONE) return true;
    Local *lo = local_of(L, n);
    return lo && lo->kind == LOC_UNIFORM;
  }
  if (y == s->field_expression) {
    const char *o = text(L, field(n, "argument"));
    if (L->batch_ok && strcmp(o, "blockIdx") == 0 && strcmp(text(L, field(n, "field")), "z") == 0)
      return L->n->batch = true;
    return strcmp(o, "blockDim") == 0 || strcmp(o, "gridDim") == 0;
  }
  if (y == s->call_expression) {
    const char *callee = text(L, field(n, "function"));
    if (strchr(callee, ':') || strncmp(callee, "__", 2) == 0) return false;
    return uniform_expr(L, field(n, "arguments"));
  }
  KrChildren it;
  bool ok = true;
  for (TSNode c = kr_children_first(&it, n); ok && !ts_node_is_null(c); c = kr_children_next(&it))
    if (ts_node_symbol(c) != s->field_identifier) ok = uniform_expr(L, c);
  kr_children_end(&it);
  return ok;
}

/* A local of the computation declared before the loop: a prologue statement (the accumulator's
 * declaration among them, which the emitters recognise by acc_decl). */
static bool temp(Lift *L, TSNode decl, Local lo) {
  kr_vec_push(L->a, &L->locals, lo);
  KrNodes *pro = &L->n->prologue;
  if (!pro->len || !ts_node_eq(pro->data[pro->len - 1], decl)) kr_vec_push(L->a, pro, decl);
  return true;
}

/* A declaration of uniform locals, once however many it declares (`int P = …, Q = …;`). */
static void push_uniform(Lift *L, TSNode decl) {
  KrNodes *u = &L->n->uniform;
  if (!u->len || !ts_node_eq(u->data[u->len - 1], decl)) kr_vec_push(L->a, u, decl);
}

/* One init_declarator before the computation. */
static bool declarator(Lift *L, TSNode decl, TSNode d) {
  const KrSyms *s = &L->t->sym;
  if (!is(L, d, s->init_declarator))
    return fail(L, d, "'%s' is declared without a value (join_declarations moves such a declaration to the local's "
                      "first assignment, where it has one)", text(L, d));
  TSNode id = field(d, "declarator"), v = field(d, "value");
  if (is(L, id, s->pointer_declarator))
    return fail(L, d, "'%s' declares a pointer local (inline_pointers writes its uses as indices of the parameter "
                      "it points into)", text(L, d));
  if (!is(L, id, s->identifier)) return fail(L, d, "the declaration '%s' is not a plain variable", text(L, d));
  const char *name = kr_node_text(L->t, id, L->a);
  Local lo = {.name_at = ts_node_start_byte(id), .name = name, .decl = decl, .axis = -1};
  if (mutated(L, lo.name_at)) {
    lo.kind = LOC_TEMP;   /* assigned later: the accumulator candidate, decided by the loop */
    return temp(L, decl, lo);
  }
  if (split_axis(L, v, name, decl)) {
    lo.kind = LOC_AXIS;
    lo.axis = (int)L->n->axes.len - 1;
    kr_vec_push(L->a, &L->locals, lo);
    return true;
  }
  Lift probe = *L;
  probe.why = NULL;
  KrNestForm *f = lin(&probe, v);
  int dim;
  long long lit;
  const char *sym, *named;
  if (f && thread_map(L->n, f, &dim, &lit, &sym, &named)) {
    KrNestAxis *ax = new_axis(L, name, KR_AXIS_PARALLEL, decl);
    ax->dim = dim;
    ax->block = sym ? sym : named ? named : kr_arena_printf(L->a, "%lld", lit);
    lo.kind = LOC_AXIS;
    lo.axis = (int)L->n->axes.len - 1;
  } else if (f && !has_var(f)) {
    lo.kind = LOC_UNIFORM;
    push_uniform(L, decl);
  } else if (f && f->terms.len == 1 && f->terms.data[0].var >= HW_T && f->terms.data[0].coef == 1 &&
             f->terms.data[0].nsyms == 0) {
    lo.kind = LOC_HW;   /* `int tx = threadIdx.x;`: a thread map may be built from it */
    lo.form = *f;
  } else if (f) {
    for (size_t i = 0; i < f->terms.len; i++)
      if (f->terms.data[i].var >= HW_T)
        return fail(L, v, "'%s' uses threadIdx or blockIdx other than as blockIdx * blockDim + "
                          "threadIdx", text(L, v));
    lo.kind = LOC_DERIVED;
    lo.form = *f;
  } else if (uniform_expr(L, v)) {
    lo.kind = LOC_UNIFORM;
    push_uniform(L, decl);
  } else {
    lo.kind = LOC_TEMP;   /* a value of the computation (the accumulator's initial value, …) */
    return temp(L, decl, lo);
  }
  kr_vec_push(L->a, &L->locals, lo);
  return true;
}

/* ---- Guards ------------------------------------------------------------------------------------------ */

static int axes_in(Lift *L, TSNode n) {
  Lift probe = *L;
  probe.why = NULL;
  KrNestForm *f = lin(&probe, n);
  if (!f) return -1;
  int c = 0;
  for (size_t i = 0; i < L->n->axes.len; i++)
    for (size_t j = 0; j < f->terms.len; j++)
      if (f->terms.data[j].var == (int)i) {
        c++;
        break;
      }
  return c;
}

static const char *negated(const char *op) {
  static const char *const pairs[][2] = {{"<", ">="}, {">=", "<"}, {">", "<="}, {"<=", ">"}, {"==", "!="}, {"!=", "=="}};
  for (size_t i = 0; i < 6; i++)
    if (strcmp(op, pairs[i][0]) == 0) return pairs[i][1];
  return NULL;
}

/* Adds the conjuncts of `c` (of `!c` when `negate`: then c's disjuncts, each negated). */
static bool guard(Lift *L, TSNode c, bool negate) {
  const KrSyms *s = &L->t->sym;
  c = unparen(L, c);
  const char *op = is(L, c, s->binary_expression) ? op_of(L, c) : "";
  if (strcmp(op, negate ? "||" : "&&") == 0)
    return guard(L, field(c, "left"), negate) && guard(L, field(c, "right"), negate);
  const char *cmp = negate ? negated(op) : op;
  if (!cmp || (strcmp(cmp, "<") && strcmp(cmp, "<=") && strcmp(cmp, ">") && strcmp(cmp, ">=")))
    return fail(L, c, "the guard '%s' is not a comparison of axes with bounds", text(L, c));
  TSNode l = field(c, "left"), r = field(c, "right");
  int nl = axes_in(L, l), nr = axes_in(L, r);
  Local *fl = is(L, unparen(L, l), s->identifier) ? local_of(L, unparen(L, l)) : NULL;
  if (fl && fl->kind == LOC_FLAT) nl = 1;
  fl = is(L, unparen(L, r), s->identifier) ? local_of(L, unparen(L, r)) : NULL;
  if (fl && fl->kind == LOC_FLAT) nr = 1;
  if (nl < 0 || nr < 0) return fail(L, c, "the guard '%s' is not linear in the axes", text(L, c));
  KrNestGuard g = {.text = kr_arena_printf(L->a, "%s %s %s", text(L, l), cmp, text(L, r)),
                   .naxes = nl + nr, .at = ts_node_start_byte(c)};
  kr_vec_push(L->a, &L->n->guards, g);
  /* An upper bound of one axis: `v < E`, `v <= E`, `E > v`, `E >= v`. */
  if (!((nl == 1 && nr == 0 && cmp[0] == '<') || (nr == 1 && nl == 0 && cmp[0] == '>'))) return true;
  TSNode v = nl == 1 ? l : r;
  TSNode vv = unparen(L, v);
  if (!is(L, vv, s->identifier)) return true;
  Local *lo = local_of(L, vv);
  TSNode bound = ts_node_eq(v, l) ? r : l;
  const char *e = text(L, bound);
  const char *hi = cmp[1] == '=' ? kr_arena_printf(L->a, "(%s) + 1", e) : e;
  if (lo && lo->kind == LOC_AXIS && !L->n->axes.data[lo->axis].hi) {
    L->n->axes.data[lo->axis].hi = hi;
    L->n->axes.data[lo->axis].hi_node = bound;
  }
  if (lo && lo->kind == LOC_FLAT)   /* idx < total: the outer half's bound is cdiv(total, div) */
    for (size_t i = 0; i < L->n->axes.len; i++) {
      KrNestAxis *ax = &L->n->axes.data[i];
      if (ax->flat && ax->outer && strcmp(ax->flat, lo->name) == 0 && !ax->hi) {
        ax->hi = kr_arena_printf(L->a, "((%s) + (%s) - 1) / (%s)", hi, ax->div, ax->div);
        ax->hi_node = bound;
      }
    }
  return true;
}

static bool is_return(Lift *L, TSNode st) {
  const KrSyms *s = &L->t->sym;
  if (is(L, st, s->compound_statement) && ts_node_named_child_count(st) == 1) st = ts_node_named_child(st, 0);
  return is(L, st, s->return_statement) && ts_node_named_child_count(st) == 0;
}

/* ---- The reduction loop ---------------------------------------------------------------------------------- */

static Local *acc_local(Lift *L, TSNode id) {
  if (!is(L, id, L->t->sym.identifier)) return NULL;
  Local *lo = local_of(L, id);
  return lo && (lo->kind == LOC_TEMP || lo->kind == LOC_ACC) ? lo : NULL;
}

static bool mentions(Lift *L, TSNode n, const char *name) {
  if (is(L, n, L->t->sym.identifier) && kr_node_text_is(L->t, n, name)) return true;
  KrChildren it;
  bool found = false;
  for (TSNode c = kr_children_first(&it, n); !found && !ts_node_is_null(c); c = kr_children_next(&it))
    found = mentions(L, c, name);
  kr_children_end(&it);
  return found;
}

/* The fused multiply-add functions whose third argument is the sum the product is added to. */
static bool fma_call(const KrTree *t, TSNode call, TSNode *x, TSNode *y, TSNode *sum) {
  if (ts_node_symbol(call) != t->sym.call_expression) return false;
  TSNode f = kr_node_field(call, "function"), args = kr_node_field(call, "arguments");
  if (!kr_node_text_is(t, f, "fmaf") && !kr_node_text_is(t, f, "fma") && !kr_node_text_is(t, f, "__fmaf_rn") &&
      !kr_node_text_is(t, f, "__fma_rn"))
    return false;
  if (ts_node_named_child_count(args) != 3) return false;
  *x = ts_node_named_child(args, 0), *y = ts_node_named_child(args, 1);
  *sum = kr_node_strip_parens(t, ts_node_named_child(args, 2));
  return true;
}

void kr_nest_factors(const KrTree *tree, TSNode value, KrArena *arena, KrNodes *out) {
  TSNode x = kr_node_strip_parens(tree, value), fx, fy, sum;
  if (fma_call(tree, x, &fx, &fy, &sum)) {
    kr_nest_factors(tree, fx, arena, out);
    kr_nest_factors(tree, fy, arena, out);
  } else if (ts_node_symbol(x) == tree->sym.binary_expression && kr_node_operator_is(tree, x, "*")) {
    kr_nest_factors(tree, kr_node_field(x, "left"), arena, out);
    kr_nest_factors(tree, kr_node_field(x, "right"), arena, out);
  } else {
    kr_vec_push(arena, out, x);
  }
}

/* `acc = acc + e`, `acc = e + acc`, `acc = fmaxf(acc, e)`, `acc = fmaf(x, y, acc)` and the like: sets
 * op and the value. */
static bool combine(Lift *L, TSNode rhs, const char *acc) {
  const KrSyms *s = &L->t->sym;
  rhs = unparen(L, rhs);
  TSNode fx, fy, fsum;
  if (fma_call(L->t, rhs, &fx, &fy, &fsum) && is(L, fsum, s->identifier) && kr_node_text_is(L->t, fsum, acc))
    return L->n->op = KR_RED_SUM, L->n->update_value = rhs, true;
  if (is(L, rhs, s->binary_expression) && strcmp(op_of(L, rhs), "+") == 0) {
    TSNode l = unparen(L, field(rhs, "left")), r = field(rhs, "right");
    if (is(L, l, s->identifier) && kr_node_text_is(L->t, l, acc)) return L->n->op = KR_RED_SUM, L->n->update_value = r, true;
    TSNode rr = unparen(L, r);
    if (is(L, rr, s->identifier) && kr_node_text_is(L->t, rr, acc)) return L->n->op = KR_RED_SUM, L->n->update_value = l, true;
  }
  if (is(L, rhs, s->call_expression)) {
    const char *f = text(L, field(rhs, "function"));
    TSNode args = field(rhs, "arguments");
    KrRedOp op = strcmp(f, "fmaxf") == 0 || strcmp(f, "max") == 0 || strcmp(f, "fmax") == 0 ? KR_RED_MAX
               : strcmp(f, "fminf") == 0 || strcmp(f, "min") == 0 || strcmp(f, "fmin") == 0 ? KR_RED_MIN
               : KR_RED_NONE;
    if (op && ts_node_named_child_count(args) == 2) {
      TSNode a0 = unparen(L, ts_node_named_child(args, 0)), a1 = ts_node_named_child(args, 1);
      TSNode a1u = unparen(L, a1);
      L->n->combine_fn = f;
      if (is(L, a0, s->identifier) && kr_node_text_is(L->t, a0, acc)) return L->n->op = op, L->n->update_value = a1, true;
      if (is(L, a1u, s->identifier) && kr_node_text_is(L->t, a1u, acc)) return L->n->op = op, L->n->update_value = a0, true;
    }
  }
  return false;
}

static bool update(Lift *L, TSNode st) {
  const KrSyms *s = &L->t->sym;
  TSNode e = ts_node_named_child(st, 0);
  if (!is(L, e, s->assignment_expression)) return fail(L, st, "'%s' is not an update of an accumulator", text(L, st));
  const char *op = op_of(L, e);
  TSNode left = unparen(L, field(e, "left")), right = field(e, "right");
  L->n->update = st;
  Local *acc = acc_local(L, left);
  if (acc) {
    L->n->acc = acc->name;
    acc->kind = LOC_ACC;
    if (strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0) L->n->op = KR_RED_SUM, L->n->update_value = right;
    else if (strcmp(op, "=") != 0 || !combine(L, right, acc->name))
      return fail(L, st, "'%s' is not an accumulation the nest can reassociate (+, max or min)", text(L, st));
    TSNode fx, fy, fsum;
    bool fma = fma_call(L->t, L->n->update_value, &fx, &fy, &fsum);
    if (fma ? mentions(L, fx, acc->name) || mentions(L, fy, acc->name) : mentions(L, L->n->update_value, acc->name))
      return fail(L, st, "the accumulator '%s' appears inside its own update '%s'", acc->name, text(L, st));
    return true;
  }
  if (is(L, left, s->subscript_expression) && (strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0)) {
    L->n->op = KR_RED_SUM;
    L->n->update_value = right;
    L->n->acc_ref = -2;   /* resolved when the references are read */
    return true;
  }
  return fail(L, st, "'%s' is not an update of an accumulator", text(L, st));
}

static bool plain_cond(Lift *L, TSNode c);

/* The integer locals a declaration in the loop body defines as linear forms of the axes and loop
 * counters (`int ih = p * stride - pad + r;`): indices may use them. */
static void loop_index_temps(Lift *L, TSNode decl) {
  const KrSyms *s = &L->t->sym;
  KrChildren it;
  for (TSNode d = kr_children_first(&it, decl); !ts_node_is_null(d); d = kr_children_next(&it)) {
    if (!is(L, d, s->init_declarator)) continue;
    TSNode id = field(d, "declarator");
    if (!is(L, id, s->identifier)) continue;
    Local lo = {.name_at = ts_node_start_byte(id), .name = kr_node_text(L->t, id, L->a), .decl = decl, .axis = -1,
                .kind = LOC_DERIVED, .in_loop = true};
    if (mutated(L, lo.name_at)) continue;
    Lift probe = *L;
    probe.why = NULL;
    KrNestForm *f = lin(&probe, field(d, "value"));
    if (!f) continue;
    lo.form = *f;
    kr_vec_push(L->a, &L->locals, lo);
  }
  kr_children_end(&it);
}

/* The update under `if (cond)` (no else): cond reads axes, temporaries and parameters only. */
static bool conditional_update(Lift *L, TSNode st) {
  const KrSyms *s = &L->t->sym;
  if (!ts_node_is_null(field(st, "alternative")))
    return fail(L, st, "the loop body's conditional statement has an else; the nest reads one conditional update");
  TSNode c = field(field(st, "condition"), "value"), body = field(st, "consequence"), u = {0};
  if (!plain_cond(L, c)) return false;
  size_t nb = is(L, body, s->compound_statement) ? ts_node_named_child_count(body) : 1;
  for (size_t i = 0; i < nb; i++) {
    TSNode x = is(L, body, s->compound_statement) ? ts_node_named_child(body, (uint32_t)i) : body;
    if (is(L, x, s->comment)) continue;
    if (!is(L, x, s->expression_statement) || set(u))
      return fail(L, x, "the conditional statement holds '%s'; the nest reads one accumulator update under a condition",
                  text(L, x));
    u = x;
  }
  if (!set(u)) return fail(L, st, "the conditional statement updates no accumulator");
  L->n->update_if = st;
  L->n->update_cond = c;
  return update(L, u);
}

static bool reduction_loop(Lift *L, TSNode loop) {
  const KrSyms *s = &L->t->sym;
  TSNode init = field(loop, "initializer"), cond = unparen(L, field(loop, "condition")),
         step = field(loop, "update"), body = field(loop, "body");
  if (!is(L, init, s->declaration) || ts_node_named_child_count(init) != 2)
    return fail(L, loop, "the loop does not declare its counter (for (int k = lo; k < hi; k++))");
  TSNode d = field(init, "declarator");
  TSNode id = field(d, "declarator");
  if (!is(L, d, s->init_declarator) || !is(L, id, s->identifier))
    return fail(L, init, "the loop does not declare one counter");
  const char *k = kr_node_text(L->t, id, L->a);
  for (size_t i = 0; i < L->n->axes.len; i++)
    if (strcmp(L->n->axes.data[i].name, k) == 0) return fail(L, id, "the loop counter '%s' reuses an axis's name", k);
  bool outermost = !set(L->n->loop);
  if (outermost)
    for (size_t i = 0; i < L->k->loops.len; i++)
      if (ts_node_eq(L->k->loops.data[i].node, loop)) L->n->loop_index = (int)i;
  KrNestAxis *ax = new_axis(L, k, KR_AXIS_REDUCE, loop);
  ax->loop = loop;
  if (outermost) L->n->reduce = (int)L->n->axes.len - 1, L->n->loop = loop;
  L->n->nreduce++;
  Lift probe = *L;
  KrNestForm *lo = lin(&probe, field(d, "value"));
  if (!lo || has_var(lo)) return fail(L, init, "the loop's start '%s' is not uniform", text(L, field(d, "value")));
  ax->lo = text(L, field(d, "value"));
  const char *cop = is(L, cond, s->binary_expression) ? op_of(L, cond) : "";
  TSNode cl = unparen(L, field(cond, "left")), cr = field(cond, "right");
  if ((strcmp(cop, "<") && strcmp(cop, "<=")) || !is(L, cl, s->identifier) || !kr_node_text_is(L->t, cl, k))
    return fail(L, cond, "the loop condition '%s' is not '%s < bound'", text(L, cond), k);
  KrNestForm *hi = lin(&probe, cr);
  if (!hi || has_var(hi)) return fail(L, cond, "the loop bound '%s' is not uniform", text(L, cr));
  ax->hi = cop[1] == '=' ? kr_arena_printf(L->a, "(%s) + 1", text(L, cr)) : text(L, cr);
  const char *st = text(L, step);
  bool unit = is(L, step, s->update_expression) && strstr(st, "++");
  if (!unit) {
    char want1[96], want2[96];
    snprintf(want1, sizeof want1, "%s += 1", k);
    snprintf(want2, sizeof want2, "%s = %s + 1", k, k);
    unit = strcmp(st, want1) == 0 || strcmp(st, want2) == 0;
  }
  if (!unit) return fail(L, step, "the loop step '%s' is not 1", st);
  /* The body: temporaries, then the update (possibly under a condition) or the next loop of a band. */
  L->in_loop = true;
  size_t nst = is(L, body, s->compound_statement) ? ts_node_named_child_count(body) : 1;
  bool inner = false;
  for (size_t i = 0; i < nst; i++) {
    TSNode c = is(L, body, s->compound_statement) ? ts_node_named_child(body, (uint32_t)i) : body;
    if (is(L, c, s->comment)) continue;
    if (set(L->n->update) || inner)
      return fail(L, c, "the loop body holds '%s' after the %s; the nest reads temporaries and one accumulator update",
                  text(L, c), inner ? "inner loop" : "update");
    if (is(L, c, s->declaration)) {
      kr_vec_push(L->a, &L->n->temps, c);
      loop_index_temps(L, c);
      continue;
    }
    if (is(L, c, s->for_statement)) {   /* a band: the next loop, perfectly nested */
      if (!reduction_loop(L, c)) return false;
      inner = true;
      continue;
    }
    if (is(L, c, s->if_statement)) {
      if (!conditional_update(L, c)) return false;
      continue;
    }
    if (!is(L, c, s->expression_statement))
      return fail(L, c, "the loop body holds '%s'; the nest reads temporaries and one accumulator update", text(L, c));
    if (!update(L, c)) return false;
  }
  if (!set(L->n->update)) return fail(L, loop, "the loop updates no accumulator");
  if (outermost) L->in_loop = false;
  return true;
}

/* ---- The statements of the computation ------------------------------------------------------------------- */

static bool statements(Lift *L, TSNode block, uint32_t from);
static bool statement(Lift *L, TSNode st, TSNode block, uint32_t i);

/* The statement of an else clause (its one named child that is not a comment). */
static TSNode else_body(Lift *L, TSNode alt) {
  for (uint32_t i = 0; i < ts_node_named_child_count(alt); i++)
    if (!is(L, ts_node_named_child(alt, i), L->t->sym.comment)) return ts_node_named_child(alt, i);
  return (TSNode){0};
}

/* A condition of the body: axes, parameters and constants only (no memory, no side effects). */
static bool plain_cond(Lift *L, TSNode c) {
  const KrSyms *s = &L->t->sym;
  TSSymbol y = ts_node_symbol(c);
  if (y == s->subscript_expression || y == s->pointer_expression)
    return fail(L, c, "the condition reads memory ('%s'); the nest reads conditions over the axes and parameters",
                text(L, c));
  if (y == s->assignment_expression || y == s->update_expression || y == s->call_expression)
    return fail(L, c, "the condition '%s' has a call or a side effect", text(L, c));
  KrChildren it;
  bool ok = true;
  for (TSNode x = kr_children_first(&it, c); ok && !ts_node_is_null(x); x = kr_children_next(&it)) ok = plain_cond(L, x);
  kr_children_end(&it);
  return ok;
}

/* A statement under a condition of the body: assignments, declarations, blocks, further ifs. */
static bool branch_ok(Lift *L, TSNode st) {
  const KrSyms *s = &L->t->sym;
  if (ts_node_is_null(st) || is(L, st, s->comment) || is(L, st, s->expression_statement) || is(L, st, s->declaration))
    return true;
  if (is(L, st, s->compound_statement)) {
    for (uint32_t i = 0; i < ts_node_named_child_count(st); i++)
      if (!branch_ok(L, ts_node_named_child(st, i))) return false;
    return true;
  }
  if (is(L, st, s->if_statement)) {
    TSNode alt = field(st, "alternative");
    return plain_cond(L, field(st, "condition")) && branch_ok(L, field(st, "consequence")) &&
           (ts_node_is_null(alt) || branch_ok(L, else_body(L, alt)));
  }
  if (is(L, st, s->for_statement)) return fail(L, st, "a loop inside a conditional statement");
  if (is(L, st, s->return_statement)) return fail(L, st, "a return inside a conditional statement (only early returns "
                                                         "before the computation are guards)");
  return fail(L, st, "'%s' is a statement the nest does not read under a condition", text(L, st));
}

/* An if statement of the computation itself (boundary points copied, interior points averaged): kept
 * as a body statement, re-emitted per output. */
static bool branch(Lift *L, TSNode st) {
  if (!branch_ok(L, st)) return false;
  kr_vec_push(L->a, &L->n->prologue, st);
  kr_vec_push(L->a, &L->n->branches, st);
  return true;
}

/* Tries `c` as the guard of the rest of the kernel; undoes what it recorded when it is not one. */
static bool try_guard(Lift *L, TSNode c) {
  size_t ng = L->n->guards.len, na = L->n->axes.len;
  const char **his = kr_arena_alloc(L->a, (na + 1) * sizeof *his);
  TSNode *nodes = kr_arena_alloc(L->a, (na + 1) * sizeof *nodes);
  for (size_t i = 0; i < na; i++) his[i] = L->n->axes.data[i].hi, nodes[i] = L->n->axes.data[i].hi_node;
  if (guard(L, c, false)) return true;
  L->why = NULL;
  L->n->guards.len = ng;
  for (size_t i = 0; i < na; i++) L->n->axes.data[i].hi = his[i], L->n->axes.data[i].hi_node = nodes[i];
  return false;
}

static bool only_comments_after(Lift *L, TSNode block, uint32_t i) {
  if (!is(L, block, L->t->sym.compound_statement)) return true;   /* the one statement of a loop's body */
  for (uint32_t j = i + 1; j < ts_node_named_child_count(block); j++)
    if (!is(L, ts_node_named_child(block, j), L->t->sym.comment)) return false;
  return true;
}

static bool if_statement(Lift *L, TSNode st, TSNode block, uint32_t i) {
  const KrSyms *s = &L->t->sym;
  TSNode c = field(field(st, "condition"), "value");
  bool alt = !ts_node_is_null(field(st, "alternative"));
  if (!alt && is_return(L, field(st, "consequence"))) {
    if (L->n->branches.len)
      return fail(L, st, "an early return after a conditional statement (the statement before it runs for every "
                         "thread)");
    L->n->early_return = true;
    return guard(L, c, true);
  }
  /* The last statement, without an else: the guard of what it encloses (when it reads as one). */
  if (!alt && only_comments_after(L, block, i) && L->n->branches.len == 0 &&
      try_guard(L, c)) {
    TSNode body = field(st, "consequence");
    if (!is(L, body, s->compound_statement)) return statement(L, body, block, i);
    return statements(L, body, 0);
  }
  return branch(L, st);
}

/* `v += blockDim.d * gridDim.d` (either order, or a uniform local of that value), `v = v + …`. */
static bool grid_step(Lift *L, TSNode step, const char *v, int dim) {
  const KrSyms *s = &L->t->sym;
  step = unparen(L, step);
  if (!is(L, step, s->assignment_expression)) return false;
  TSNode left = unparen(L, field(step, "left")), right = unparen(L, field(step, "right"));
  if (!is(L, left, s->identifier) || !kr_node_text_is(L->t, left, v)) return false;
  const char *op = op_of(L, step);
  if (strcmp(op, "=") == 0) {
    if (!is(L, right, s->binary_expression) || strcmp(op_of(L, right), "+") != 0) return false;
    TSNode a = unparen(L, field(right, "left")), b = field(right, "right");
    if (is(L, a, s->identifier) && kr_node_text_is(L->t, a, v)) right = unparen(L, b);
    else if (is(L, unparen(L, b), s->identifier) && kr_node_text_is(L->t, unparen(L, b), v)) right = a;
    else return false;
  } else if (strcmp(op, "+=") != 0) {
    return false;
  }
  if (is(L, right, s->identifier)) {   /* `int stride = blockDim.x * gridDim.x;` before the loop */
    Local *lo = local_of(L, right);
    if (!lo || lo->kind != LOC_UNIFORM) return false;
    TSNode d = field(lo->decl, "declarator");
    if (!is(L, d, s->init_declarator)) return false;
    right = unparen(L, field(d, "value"));
  }
  Lift probe = *L;
  probe.why = NULL;
  KrNestForm *f = lin(&probe, right);
  static const char *const bd[] = {"blockDim.x", "blockDim.y", "blockDim.z"}, *const gd[] = {"gridDim.x", "gridDim.y", "gridDim.z"};
  if (!f || f->terms.len != 1 || f->terms.data[0].var != -1 || f->terms.data[0].coef != 1 || f->terms.data[0].nsyms != 2)
    return false;
  return strcmp(f->terms.data[0].syms[0], bd[dim]) == 0 && strcmp(f->terms.data[0].syms[1], gd[dim]) == 0;
}

/* A grid-stride loop over a thread-map axis: `for (int v = blockIdx.d * blockDim.d + threadIdx.d; v < hi;
 * v += blockDim.d * gridDim.d)`. The axis is the same as the guarded thread map's; its condition is
 * its guard. False (without a reason) when the loop is not one. */
static bool grid_stride(Lift *L, TSNode loop, TSNode block, uint32_t i, bool *ok) {
  const KrSyms *s = &L->t->sym;
  TSNode init = field(loop, "initializer"), cond = unparen(L, field(loop, "condition"));
  if (!is(L, init, s->declaration) || ts_node_named_child_count(init) != 2) return false;
  TSNode d = field(init, "declarator"), id = field(d, "declarator");
  if (!is(L, d, s->init_declarator) || !is(L, id, s->identifier)) return false;
  Lift probe = *L;
  probe.why = NULL;
  KrNestForm *f = lin(&probe, field(d, "value"));
  int dim;
  long long lit;
  const char *sym, *named;
  if (!f || !thread_map(L->n, f, &dim, &lit, &sym, &named)) return false;
  const char *v = kr_node_text(L->t, id, L->a);
  *ok = false;
  static const char *const xyz[] = {"x", "y", "z"};
  if (!grid_step(L, field(loop, "update"), v, dim))
    return fail(L, field(loop, "update"), "the loop over '%s' starts at a thread index but steps by '%s'; the nest reads "
                                          "grid-stride loops (%s += blockDim.%s * gridDim.%s)", v,
                text(L, field(loop, "update")), v, xyz[dim], xyz[dim]), true;
  if (!sym) return fail(L, loop, "the grid-stride loop '%s' steps by blockDim * gridDim but its thread map uses a "
                                 "literal block size", v);
  size_t muts = 0;
  for (size_t m = 0; m < L->muts.len; m++) muts += L->muts.data[m] == ts_node_start_byte(id);
  if (muts != 1) return fail(L, loop, "the grid-stride index '%s' is assigned inside its loop", v);
  if (!only_comments_after(L, block, i)) return fail(L, loop, "statements follow the grid-stride loop over '%s'", v);
  KrNestAxis *ax = new_axis(L, v, KR_AXIS_PARALLEL, loop);
  ax->dim = dim;
  ax->block = sym;
  ax->grid_stride = true;
  Local lo = {.name_at = ts_node_start_byte(id), .name = v, .decl = init, .kind = LOC_AXIS, .axis = (int)L->n->axes.len - 1};
  kr_vec_push(L->a, &L->locals, lo);
  TSNode cl = is(L, cond, s->binary_expression) ? unparen(L, field(cond, "left")) : (TSNode){0};
  if (!is(L, cl, s->identifier) || !kr_node_text_is(L->t, cl, v) || (!kr_node_operator_is(L->t, cond, "<") &&
                                                                       !kr_node_operator_is(L->t, cond, "<=")))
    return fail(L, cond, "the grid-stride loop's condition '%s' is not '%s < bound'", text(L, cond), v);
  if (!guard(L, cond, false)) return false;
  TSNode body = field(loop, "body");
  *ok = is(L, body, s->compound_statement) ? statements(L, body, 0) : statement(L, body, body, 0);
  return true;
}

/* `#pragma unroll` (with or without a count) directly above a loop: a hint for that loop, which a
 * schedule's own loops replace, read as a comment. */
static bool unroll_hint(Lift *L, TSNode st, TSNode block, uint32_t i) {
  if (!is(L, st, L->t->sym.preproc_call) || i + 1 >= ts_node_named_child_count(block) ||
      !is(L, ts_node_named_child(block, i + 1), L->t->sym.for_statement))
    return false;
  const char *t = text(L, st) + 1;   /* past '#' */
  t += strspn(t, " \t");
  if (strncmp(t, "pragma", 6) != 0) return false;
  t += 6;
  size_t blank = strspn(t, " \t");
  return blank > 0 && strncmp(t + blank, "unroll", 6) == 0 &&
         (t[blank + 6] == '\0' || strchr(" \t\r\n(", t[blank + 6]));
}

static bool statement(Lift *L, TSNode st, TSNode block, uint32_t i) {
  const KrSyms *s = &L->t->sym;
  if (is(L, st, s->comment) || unroll_hint(L, st, block, i)) return true;
  if (is(L, st, s->declaration) && !set(L->n->loop)) {
    KrChildren it;
    bool ok = true;
    for (TSNode c = kr_children_first(&it, st); ok && !ts_node_is_null(c); c = kr_children_next(&it))
      if (ts_node_eq(c, field(st, "type")) == false && (is(L, c, s->init_declarator) || is(L, c, s->identifier)))
        ok = declarator(L, st, c);
    kr_children_end(&it);
    return ok;
  }
  if (is(L, st, s->if_statement) && !set(L->n->loop)) return if_statement(L, st, block, i);
  if (is(L, st, s->for_statement)) {
    bool ok = true;
    if (!set(L->n->loop) && grid_stride(L, st, block, i, &ok)) return ok;
    if (!ok) return false;
    if (set(L->n->loop)) return fail(L, st, "a second loop (the nest reads one reduction loop)");
    return reduction_loop(L, st);
  }
  if (is(L, st, s->expression_statement) || is(L, st, s->declaration)) {
    kr_vec_push(L->a, set(L->n->loop) ? &L->n->epilogue : &L->n->prologue, st);
    return true;
  }
  if (is(L, st, s->return_statement) && i + 1 == ts_node_named_child_count(block)) return true;
  return fail(L, st, "'%s' is a statement the nest does not read", text(L, st));
}

static bool statements(Lift *L, TSNode block, uint32_t from) {
  uint32_t n = ts_node_named_child_count(block);
  for (uint32_t i = from; i < n; i++)
    if (!statement(L, ts_node_named_child(block, i), block, i)) return false;
  return true;
}

/* ---- References ---------------------------------------------------------------------------------------- */

static bool refs(Lift *L, TSNode n, bool in_loop) {
  const KrSyms *s = &L->t->sym;
  if (is(L, n, s->subscript_expression)) {
    TSNode arg = unparen(L, field(n, "argument"));
    KrBinding b = is(L, arg, s->identifier) ? kr_resolve(L->t, L->k, arg) : (KrBinding){0};
    if (b.kind != KR_BIND_PARAM || L->k->params.data[b.param].pointer_depth != 1)
      return fail(L, n, "'%s' indexes something other than a pointer parameter", text(L, n));
    TSNode idx = ts_node_named_child(field(n, "indices"), 0);
    KrNestForm *f = lin(L, idx);
    if (!f) return false;
    for (size_t i = 0; i < f->terms.len; i++)
      if (f->terms.data[i].var >= HW_T)
        return fail(L, idx, "the index '%s' uses threadIdx or blockIdx directly", text(L, idx));
    TSNode p = ts_node_parent(n);
    bool write = is(L, p, s->assignment_expression) && ts_node_eq(unparen(L, field(p, "left")), n);
    KrNestRef r = {.array = kr_node_text(L->t, arg, L->a), .param = b.param, .write = write, .node = n,
                   .index = *f, .in_loop = in_loop};
    kr_vec_push(L->a, &L->n->refs, r);
    return refs(L, idx, in_loop);
  }
  if (is(L, n, s->pointer_expression) && strcmp(op_of(L, n), "*") == 0)
    return fail(L, n, "'%s' dereferences a pointer; the nest reads subscripts", text(L, n));
  KrChildren it;
  bool ok = true;
  for (TSNode c = kr_children_first(&it, n); ok && !ts_node_is_null(c); c = kr_children_next(&it))
    ok = refs(L, c, in_loop);
  kr_children_end(&it);
  return ok;
}

/* ---- Where each reference is evaluated ----------------------------------------------------------------- */

/* The ranges of the axes are narrowed by the conditions around a reference: the guards, the
 * conditions of the body's branches (negated in an else), a grid-stride loop's condition. A
 * conjunct `axis OP bound` with a uniform bound narrows one axis; a disjunction takes the hull of
 * its two sides; anything else over an axis leaves the range as it was and marks it loose. */

typedef KrNestRange Dom;

static Dom *dom_copy(Lift *L, const Dom *d) {
  size_t n = L->n->axes.len;
  Dom *c = kr_arena_alloc(L->a, (n + 1) * sizeof *c);
  for (size_t i = 0; i < n; i++) c[i] = d[i];
  return c;
}

static void loosen(Dom *r, uint32_t at) {
  if (!r->loose) r->loose_at = at;
  r->loose = true;
}

static KrNestForm *plus(Lift *L, const KrNestForm *f, long long c) { return add(L, f, single(L, c, -1, NULL), 1); }

/* a - b as an integer, also when they differ by symbols the file fixes (`#define R 2`). */
static bool offset(Lift *L, const KrNestForm *a, const KrNestForm *b, long long *d) {
  if (kr_nest_form_offset(a, b, d)) return true;
  KrNestForm *f = add(L, a, b, -1);
  long long c = 0;
  for (size_t i = 0; i < f->terms.len; i++) {
    const KrNestTerm *t = &f->terms.data[i];
    long long v = t->coef;
    for (int s = 0; s < t->nsyms; s++) {
      size_t k = 0;
      while (k < L->n->consts.len && strcmp(L->n->consts.data[k].name, t->syms[s]) != 0) k++;
      if (k == L->n->consts.len || t->var >= 0) return false;
      v *= L->n->consts.data[k].value;
    }
    c += v;
  }
  *d = c;
  return true;
}

static bool is_const(const KrNestForm *f) {
  for (size_t i = 0; i < f->terms.len; i++)
    if (f->terms.data[i].var >= 0 || f->terms.data[i].nsyms) return false;
  return true;
}

/* Either of two lower bounds covers the values (their maximum is the bound); a symbolic one is kept
 * over the constant that thread indices start from, since the loads never go below 0 anyway. */
static void narrow_lo(Lift *L, Dom *r, const KrNestForm *b, uint32_t at) {
  long long d;
  if (offset(L, b, &r->lo, &d)) {
    if (d > 0) r->lo = *b;
  } else if (is_const(&r->lo)) {
    r->lo = *b;
  } else {
    loosen(r, at);
  }
}

static void narrow_hi(Lift *L, Dom *r, const KrNestForm *b, uint32_t at) {
  long long d;
  if (!r->hi) r->hi = b;
  else if (!offset(L, b, r->hi, &d)) loosen(r, at);
  else if (d < 0) r->hi = b;
}

static void hull(Lift *L, Dom *d, const Dom *x, const Dom *y, size_t n, uint32_t at) {
  for (size_t i = 0; i < n; i++) {
    Dom r = x[i];
    long long k;
    if (!offset(L, &y[i].lo, &x[i].lo, &k)) loosen(&r, at);
    else if (k < 0) r.lo = y[i].lo;
    if (!x[i].hi || !y[i].hi) r.hi = NULL;
    else if (!offset(L, y[i].hi, x[i].hi, &k)) loosen(&r, at);
    else if (k > 0) r.hi = y[i].hi;
    if (y[i].loose) loosen(&r, y[i].loose_at);
    d[i] = r;
  }
}

static void loosen_mentioned(Lift *L, Dom *d, TSNode c) {
  for (size_t i = 0; i < L->n->axes.len; i++)
    if (mentions(L, c, L->n->axes.data[i].name)) loosen(&d[i], ts_node_start_byte(c));
  for (size_t i = 0; i < L->locals.len; i++) {   /* derived locals and flat indices stand for their axes */
    const Local *lo = &L->locals.data[i];
    if ((lo->kind != LOC_DERIVED && lo->kind != LOC_FLAT) || !mentions(L, c, lo->name)) continue;
    for (size_t t = 0; t < lo->form.terms.len; t++)
      if (lo->form.terms.data[t].var >= 0 && lo->form.terms.data[t].var < (int)L->n->axes.len)
        loosen(&d[lo->form.terms.data[t].var], ts_node_start_byte(c));
  }
}

/* Narrows d by c (by !c when negate). */
static void dom_cond(Lift *L, Dom *d, TSNode c, bool negate) {
  const KrSyms *s = &L->t->sym;
  c = unparen(L, c);
  if (is(L, c, s->unary_expression) && kr_node_operator_is(L->t, c, "!")) return dom_cond(L, d, field(c, "argument"), !negate);
  const char *op = is(L, c, s->binary_expression) ? op_of(L, c) : "";
  if (strcmp(op, negate ? "||" : "&&") == 0) {
    dom_cond(L, d, field(c, "left"), negate);
    dom_cond(L, d, field(c, "right"), negate);
    return;
  }
  if (strcmp(op, negate ? "&&" : "||") == 0) {
    Dom *x = dom_copy(L, d), *y = dom_copy(L, d);
    dom_cond(L, x, field(c, "left"), negate);
    dom_cond(L, y, field(c, "right"), negate);
    hull(L, d, x, y, L->n->axes.len, ts_node_start_byte(c));
    return;
  }
  const char *cmp = negate ? negated(op) : (*op ? op : NULL);
  Lift probe = *L;
  probe.why = NULL;
  KrNestForm *l = cmp ? lin(&probe, field(c, "left")) : NULL, *r = l ? lin(&probe, field(c, "right")) : NULL;
  if (!r) return loosen_mentioned(L, d, c);
  KrNestForm *f = add(L, l, r, -1);   /* f CMP 0 */
  int axis = -1, naxes = 0;
  long long coef = 0;
  KrNestForm *rest = form_new(L);
  for (size_t i = 0; i < f->terms.len; i++) {
    const KrNestTerm *t = &f->terms.data[i];
    if (t->var < 0) kr_vec_push(L->a, &rest->terms, *t);
    else naxes++, axis = t->var, coef = t->nsyms ? 0 : t->coef;
  }
  if (naxes == 0) return;   /* a uniform condition: the same for every point */
  if (naxes > 1 || (coef != 1 && coef != -1) || axis >= (int)L->n->axes.len) return loosen_mentioned(L, d, c);
  /* coef * axis + rest CMP 0: axis CMP' -rest (coef 1), or axis CMP'' rest with CMP flipped (coef -1). */
  KrNestForm *b = coef == 1 ? mul(L, rest, single(L, -1, -1, NULL), c) : rest;
  if (coef == -1) cmp = strcmp(cmp, "<") == 0 ? ">" : strcmp(cmp, ">") == 0 ? "<" : strcmp(cmp, "<=") == 0 ? ">="
                      : strcmp(cmp, ">=") == 0 ? "<=" : cmp;
  Dom *x = &d[axis];
  uint32_t at = ts_node_start_byte(c);
  long long k;
  if (strcmp(cmp, "<") == 0) narrow_hi(L, x, b, at);
  else if (strcmp(cmp, "<=") == 0) narrow_hi(L, x, plus(L, b, 1), at);
  else if (strcmp(cmp, ">") == 0) narrow_lo(L, x, plus(L, b, 1), at);
  else if (strcmp(cmp, ">=") == 0) narrow_lo(L, x, b, at);
  else if (strcmp(cmp, "==") == 0) narrow_lo(L, x, b, at), narrow_hi(L, x, plus(L, b, 1), at);
  else if (strcmp(cmp, "!=") == 0) {   /* only an end of the range moves; a hole inside leaves the hull */
    if (offset(L, b, &x->lo, &k) && k == 0) x->lo = *plus(L, b, 1);
    else if (x->hi && offset(L, plus(L, b, 1), x->hi, &k) && k == 0) x->hi = b;
  } else loosen_mentioned(L, d, c);
}

static void dom_record(Lift *L, TSNode st, const Dom *d, bool cond) {
  for (size_t i = 0; i < L->n->refs.len; i++) {
    KrNestRef *r = &L->n->refs.data[i];
    if (ts_node_start_byte(r->node) < ts_node_start_byte(st) || ts_node_end_byte(r->node) > ts_node_end_byte(st)) continue;
    r->range = dom_copy(L, d);
    r->cond = cond;
  }
}

static bool is_branch(Lift *L, TSNode st) {
  for (size_t i = 0; i < L->n->branches.len; i++)
    if (ts_node_eq(L->n->branches.data[i], st)) return true;
  return false;
}

static void domains(Lift *L, TSNode st, Dom *d, bool cond) {
  const KrSyms *s = &L->t->sym;
  if (ts_node_is_null(st)) return;
  if (is(L, st, s->compound_statement)) {
    Dom *in = dom_copy(L, d);
    for (uint32_t i = 0; i < ts_node_named_child_count(st); i++) {
      TSNode c = ts_node_named_child(st, i);
      if (is(L, c, s->if_statement) && ts_node_is_null(field(c, "alternative")) && is_return(L, field(c, "consequence")))
        dom_cond(L, in, field(field(c, "condition"), "value"), true);
      else domains(L, c, in, cond);
    }
    return;
  }
  if (is(L, st, s->if_statement)) {
    bool br = cond || is_branch(L, st) || ts_node_eq(st, L->n->update_if);
    TSNode c = field(field(st, "condition"), "value"), alt = field(st, "alternative");
    Dom *x = dom_copy(L, d);
    dom_cond(L, x, c, false);
    domains(L, field(st, "consequence"), x, br);
    if (ts_node_is_null(alt)) return;
    x = dom_copy(L, d);
    dom_cond(L, x, c, true);
    domains(L, else_body(L, alt), x, br);
    return;
  }
  if (is(L, st, s->for_statement)) {
    Dom *x = dom_copy(L, d);
    int band = -1;
    for (size_t i = 0; i < L->n->axes.len; i++)
      if (L->n->axes.data[i].kind == KR_AXIS_REDUCE && ts_node_eq(st, L->n->axes.data[i].loop)) band = (int)i;
    if (band >= 0) {   /* a reduction axis takes its loop's bounds */
      Lift probe = *L;
      TSNode init = field(field(st, "initializer"), "declarator"), cnd = unparen(L, field(st, "condition"));
      KrNestForm *lo = lin(&probe, field(init, "value")), *hi = lo ? lin(&probe, field(cnd, "right")) : NULL;
      if (hi) {
        x[band].lo = *lo;
        x[band].hi = kr_node_operator_is(L->t, cnd, "<=") ? plus(L, hi, 1) : hi;
      }
    } else {
      dom_cond(L, x, field(st, "condition"), false);
    }
    domains(L, field(st, "body"), x, cond);
    return;
  }
  dom_record(L, st, d, cond);
}

static void ranges(Lift *L) {
  KrNest *n = L->n;
  Dom *d = kr_arena_alloc(L->a, (n->axes.len + 1) * sizeof *d);
  for (size_t i = 0; i < n->axes.len; i++) {   /* a thread index is never negative */
    const KrNestAxis *x = &n->axes.data[i];
    Lift probe = *L;
    if (x->kind == KR_AXIS_PARALLEL && x->flat && !x->outer && !ts_node_is_null(x->hi_node)) d[i].hi = lin(&probe, x->hi_node);
  }
  domains(L, L->k->body, d, false);
}

/* Reads `c` as a conjunction of linear comparisons into n->cond_ge (each `form >= 0`); false when a
 * conjunct is not one (the lift does not fail: the condition stays text). */
static bool cond_conjuncts(Lift *L, TSNode c) {
  c = unparen(L, c);
  if (!is(L, c, L->t->sym.binary_expression)) return false;
  const char *op = op_of(L, c);
  if (strcmp(op, "&&") == 0) return cond_conjuncts(L, field(c, "left")) && cond_conjuncts(L, field(c, "right"));
  bool lt = strcmp(op, "<") == 0, le = strcmp(op, "<=") == 0, gt = strcmp(op, ">") == 0, ge = strcmp(op, ">=") == 0;
  if (!lt && !le && !gt && !ge) return false;
  Lift probe = *L;
  probe.why = NULL;
  KrNestForm *x = lin(&probe, field(c, "left"));
  KrNestForm *y = x ? lin(&probe, field(c, "right")) : NULL;
  if (!y) return false;
  /* x >= y: x - y >= 0; x > y: x - y - 1 >= 0; x <= y: y - x >= 0; x < y: y - x - 1 >= 0 (integers) */
  KrNestForm *f = lt || le ? add(L, y, x, -1) : add(L, x, y, -1);
  if (lt || gt) f = plus(L, f, -1);
  kr_vec_push(L->a, &L->n->cond_ge, *f);
  return true;
}

static bool finish(Lift *L) {
  KrNest *n = L->n;
  /* Drop flat indices that were split into two axes, renumbering what refers to axes. */
  int *map = kr_arena_alloc(L->a, (n->axes.len + 1) * sizeof *map);
  size_t w = 0;
  for (size_t i = 0; i < n->axes.len; i++) {
    map[i] = -1;
    if (n->axes.data[i].flat && !*n->axes.data[i].flat) continue;
    map[i] = (int)w;
    n->axes.data[w++] = n->axes.data[i];
  }
  n->axes.len = w;
  if (n->reduce >= 0) n->reduce = map[n->reduce];
  for (size_t i = 0; i < L->locals.len; i++) {
    Local *lo = &L->locals.data[i];
    if (lo->kind == LOC_AXIS) lo->axis = map[lo->axis];
    if (lo->kind != LOC_DERIVED) continue;
    for (size_t t = 0; t < lo->form.terms.len; t++) {
      int v = lo->form.terms.data[t].var;
      if (v >= 0 && v < HW_T && map[v] < 0)
        return fail(L, lo->decl, "'%s' is defined from the flat index before it is split", lo->name);
      if (v >= 0 && v < HW_T) lo->form.terms.data[t].var = map[v];
    }
    unsigned mask = 0;
    for (size_t t = 0; t < lo->form.terms.len; t++)
      if (lo->form.terms.data[t].var >= 0) mask |= 1u << lo->form.terms.data[t].var;
    if (lo->in_loop) {   /* a temporary of the loop body, declared there */
      KrNodes *ld = &n->loop_derived;
      if (ld->len && ts_node_eq(ld->data[ld->len - 1], lo->decl)) n->loop_derived_axes.data[ld->len - 1] |= mask;
      else {
        kr_vec_push(L->a, ld, lo->decl);
        kr_vec_push(L->a, &n->loop_derived_axes, mask);
      }
      continue;
    }
    kr_vec_push(L->a, &n->derived, lo->decl);
    kr_vec_push(L->a, &n->derived_axes, mask);
  }
  /* A flat index's inner half is below its divisor by construction; the nest states it as a guard,
   * since a schedule that maps the halves to their own threads must check it. */
  for (size_t i = 0; i < n->axes.len; i++) {
    const KrNestAxis *x = &n->axes.data[i];
    if (!x->flat || x->outer) continue;
    KrNestGuard g = {.text = kr_arena_printf(L->a, "%s < %s", x->name, x->div), .naxes = 1, .at = x->at};
    kr_vec_push(L->a, &n->guards, g);
  }
  /* Flat indices read as linear forms of their parts: idx = outer * div + inner, or with middle parts
   * idx = … + mid * step + inner, each part's stride the product of the extents below it. */
  for (size_t i = 0; i < L->locals.len; i++) {
    Local *lo = &L->locals.data[i];
    if (lo->kind != LOC_FLAT) continue;
    KrVec(Part *) mine = {0};
    Part *inner = NULL, *outer = NULL;
    for (size_t j = 0; j < L->parts.len; j++) {
      Part *p = &L->parts.data[j];
      if (strcmp(p->flat, lo->name) != 0) continue;
      kr_vec_push(L->a, &mine, p);
      if (n->axes.data[map[p->axis]].outer) outer = p;
      else if (!p->step) inner = p;
    }
    if (!outer || !inner)
      return fail(L, lo->decl, "the flat index '%s' is split by only one of '/' and '%%'", lo->name);
    KrNestForm *f = single(L, 1, map[inner->axis], NULL), *stride = inner->div;
    size_t used = 1;
    for (bool done = false; !done;) {
      Part *next = NULL;
      for (size_t j = 0; j < mine.len && !next; j++) {
        Part *p = mine.data[j];
        long long d;
        const KrNestForm *ps = n->axes.data[map[p->axis]].outer ? p->div : p->step;
        if (p != inner && ps && offset(L, ps, stride, &d) && d == 0) next = p;
      }
      if (!next) {
        const char *missing = kr_nest_form_text(n, stride, L->a);
        return fail(L, lo->decl, "the flat index '%s' is split by divisors that do not chain (no part divides it by "
                                 "'%s')", lo->name, missing);
      }
      f = add(L, f, mul(L, single(L, 1, map[next->axis], NULL), stride, lo->decl), 1);
      used++;
      if (next == outer) done = true;
      else stride = mul(L, stride, next->div, lo->decl);
    }
    if (used != mine.len)
      return fail(L, lo->decl, "the flat index '%s' is split into parts that overlap", lo->name);
    lo->form = *f;
  }
  if (!set(n->loop)) {   /* no reduction: every statement is an epilogue statement of the outputs */
    for (size_t i = 0; i < n->prologue.len; i++) kr_vec_push(L->a, &n->epilogue, n->prologue.data[i]);
    n->prologue.len = 0;
  }
  for (size_t i = 0; i < L->locals.len; i++) {
    Local *lo = &L->locals.data[i];
    if (lo->kind != LOC_ACC) continue;
    n->acc_decl = lo->decl;
    TSNode d = field(lo->decl, "declarator");
    n->acc_type = text(L, field(lo->decl, "type"));
    n->acc_init = ts_node_is_null(field(d, "value")) ? NULL : text(L, field(d, "value"));
    if (!n->acc_init) return fail(L, lo->decl, "the accumulator '%s' has no initial value", lo->name);
    if (ts_node_named_child_count(lo->decl) != 2)
      return fail(L, lo->decl, "the accumulator '%s' shares its declaration with other variables", lo->name);
  }
  bool pro = true;
  for (size_t i = 0; pro && i < n->prologue.len; i++) pro = refs(L, n->prologue.data[i], false);
  for (size_t i = 0; pro && i < n->temps.len; i++) pro = refs(L, n->temps.data[i], true);
  if (pro && set(n->update)) pro = refs(L, n->update, true);
  if (pro && set(n->update_cond) && !cond_conjuncts(L, n->update_cond)) n->cond_ge.len = 0;
  for (size_t i = 0; pro && i < n->epilogue.len; i++) pro = refs(L, n->epilogue.data[i], false);
  if (!pro) return false;
  if (set(n->loop) && n->branches.len)
    return fail(L, n->branches.data[0], "a conditional statement in a nest with a reduction loop");
  ranges(L);
  /* The prologue runs after the loop in the emitted kernel: it must not write what the loop reads. */
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *wr = &n->refs.data[i];
    if (!wr->write || wr->in_loop) continue;
    bool in_pro = false;
    for (size_t p = 0; p < n->prologue.len; p++)
      in_pro |= ts_node_start_byte(wr->node) >= ts_node_start_byte(n->prologue.data[p]) &&
                ts_node_end_byte(wr->node) <= ts_node_end_byte(n->prologue.data[p]);
    for (size_t j = 0; in_pro && j < n->refs.len; j++)
      if (n->refs.data[j].in_loop && !n->refs.data[j].write && strcmp(n->refs.data[j].array, wr->array) == 0)
        return fail(L, wr->node, "'%s' is written before the loop and read inside it", wr->array);
  }
  if (n->acc_ref == -2) {   /* a global accumulator: the element the update writes */
    TSNode left = unparen(L, field(ts_node_named_child(n->update, 0), "left"));
    for (size_t i = 0; i < n->refs.len; i++)
      if (ts_node_eq(n->refs.data[i].node, left)) n->acc_ref = (int)i;
    const KrNestRef *r = &n->refs.data[n->acc_ref];
    for (size_t t = 0; t < r->index.terms.len; t++)
      if (r->index.terms.data[t].var == n->reduce)
        return fail(L, r->node, "the accumulated element '%s' moves with the loop counter", text(L, r->node));
  }
  for (size_t i = 0; i < n->axes.len; i++)
    if (n->axes.data[i].kind == KR_AXIS_PARALLEL && !n->axes.data[i].hi)
      return fail(L, L->k->body, "the axis '%s' has no bound: the kernel has no guard '%s < …'",
                  n->axes.data[i].name, n->axes.data[i].name);
  /* A temp or prologue local must not be the accumulator of a second reduction. */
  for (size_t i = 0; i < L->locals.len; i++) {
    Local *lo = &L->locals.data[i];
    if (lo->kind == LOC_TEMP && set(n->loop) && mutated(L, lo->name_at) && mentions(L, n->loop, lo->name))
      return fail(L, lo->decl, "'%s' carries a value between iterations and is not the accumulator", lo->name);
  }
  return true;
}

/* The local whose declarator (or for-loop initializer) holds `n`, or NULL. */
static const Local *declared_by(Lift *L, TSNode n) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
    if (!is(L, p, L->t->sym.init_declarator)) continue;
    TSNode id = field(p, "declarator");
    for (size_t i = 0; i < L->locals.len; i++)
      if (L->locals.data[i].name_at == ts_node_start_byte(id)) return &L->locals.data[i];
    return NULL;
  }
  return NULL;
}

/* Every use of a name for threadIdx or blockIdx (LOC_HW) is in a thread map's definition: the
 * emitters drop its declaration with the thread maps it built, so any other use would be lost. */
static bool hw_aliases_used(Lift *L, TSNode n) {
  if (is(L, n, L->t->sym.identifier)) {
    const Local *lo = local_of(L, n), *d;
    if (!lo || lo->kind != LOC_HW || lo->name_at == ts_node_start_byte(n)) return true;
    if ((d = declared_by(L, n)) && d->kind == LOC_AXIS) return true;
    return fail(L, n, "'%s', a name for threadIdx or blockIdx, is used other than to compute a thread index "
                      "(blockIdx * blockDim + threadIdx)", lo->name);
  }
  KrChildren it;
  bool ok = true;
  for (TSNode c = kr_children_first(&it, n); ok && !ts_node_is_null(c); c = kr_children_next(&it)) ok = hw_aliases_used(L, c);
  kr_children_end(&it);
  return ok;
}

/* Whether n holds `threadIdx.z`. */
static bool uses_thread_z(Lift *L, TSNode n) {
  if (is(L, n, L->t->sym.field_expression) && strcmp(text(L, field(n, "argument")), "threadIdx") == 0 &&
      strcmp(text(L, field(n, "field")), "z") == 0)
    return true;
  KrChildren it;
  bool found = false;
  for (TSNode c = kr_children_first(&it, n); !found && !ts_node_is_null(c); c = kr_children_next(&it))
    found = uses_thread_z(L, c);
  kr_children_end(&it);
  return found;
}

KrNest *kr_nest_lift(const KrTree *tree, const KrKernel *k, KrArena *arena, KrDiags *diags) {
  Lift L = {.t = tree, .k = k, .a = arena, .d = diags, .lx = kr_loops_new(tree, k, arena)};
  L.batch_ok = !uses_thread_z(&L, k->body);
  L.n = kr_arena_alloc(arena, sizeof *L.n);
  L.n->kernel = k;
  L.n->reduce = -1;
  L.n->acc_ref = -1;
  L.n->loop_index = -1;
  bool ok = true;
  if (k->shared.len) ok = fail(&L, k->shared.data[0].node, "the kernel already uses shared memory ('%s')", k->shared.data[0].name);
  else if (kr_kernel_generic(k)) ok = fail(&L, k->node, "a template kernel (the nest reads one instantiation: "
                                                         "specialize writes it out for the arguments it is named with)");
  ok = ok && scan(&L, k->body);
  ok = ok && statements(&L, k->body, 0);
  ok = ok && hw_aliases_used(&L, k->body);
  ok = ok && finish(&L);
  size_t par = 0;
  for (size_t i = 0; ok && i < L.n->axes.len; i++) par += L.n->axes.data[i].kind == KR_AXIS_PARALLEL;
  if (ok && par == 0) ok = fail(&L, k->body, "no thread index (blockIdx * blockDim + threadIdx) is defined");
  if (ok) return L.n;
  kr_diag_at(diags, KR_DIAG_ERROR, tree->src, L.at, "kernel '%s' cannot be lifted into a nest: %s", k->name, L.why);
  return NULL;
}

/* ---- Printing ------------------------------------------------------------------------------------------- */

static const char *op_name(KrRedOp op) {
  return op == KR_RED_SUM ? "+" : op == KR_RED_MAX ? "max" : op == KR_RED_MIN ? "min" : "none";
}

static uint32_t line_of(const KrTree *t, uint32_t at) { return kr_source_line_of(t->src, at) + 1; }

/* "  (when 1 <= i < H - 1, 1 <= j < W - 1)": where a reference under a branch is evaluated. */
static void range_text(const KrNest *n, const KrNestRef *r, KrBuf *o, KrArena *a) {
  kr_buf_puts(o, "  (when ");
  for (size_t i = 0; i < n->axes.len; i++) {
    const KrNestRange *x = &r->range[i];
    kr_buf_printf(o, "%s%s <= %s", i ? ", " : "", kr_nest_form_text(n, &x->lo, a), n->axes.data[i].name);
    if (x->hi) kr_buf_printf(o, " < %s", kr_nest_form_text(n, x->hi, a));
    if (x->loose) kr_buf_puts(o, " (or fewer)");
  }
  kr_buf_puts(o, ")");
}

void kr_nest_text(const KrNest *n, const KrTree *t, KrBuf *o) {
  KrArena *a = kr_arena_new();
  kr_buf_printf(o, "nest of %s:\n", n->kernel->name);
  for (size_t i = 0; i < n->axes.len; i++) {
    const KrNestAxis *x = &n->axes.data[i];
    if (x->kind == KR_AXIS_REDUCE) {
      kr_buf_printf(o, "  reduce    %s in [%s, %s)  (loop at line %u)\n", x->name, x->lo, x->hi, line_of(t, x->at));
      continue;
    }
    kr_buf_printf(o, "  parallel  %s < %s  (", x->name, x->hi);
    if (x->flat && x->step) kr_buf_printf(o, "(%s / %s) %% %s, ", x->flat, x->step, x->div);
    else if (x->flat) kr_buf_printf(o, "%s %s %s, ", x->flat, x->outer ? "/" : "%", x->div);
    kr_buf_printf(o, "%sthread map %c, block %s, line %u)\n", x->grid_stride ? "grid-stride loop, " : "",
                  "xyz"[x->dim < 0 ? 0 : x->dim], x->block ? x->block : "?", line_of(t, x->at));
  }
  if (n->batch) kr_buf_puts(o, "  batch     blockIdx.z  (uniform over each block; a rewrite keeps the launch's grid.z)\n");
  for (size_t i = 0; i < n->guards.len; i++)
    kr_buf_printf(o, "  guard     %s%s\n", n->guards.data[i].text, n->guards.data[i].naxes > 1 ? "  (output only)" : "");
  if (n->reduce >= 0) {
    if (n->acc) kr_buf_printf(o, "  acc       %s %s = %s, op %s\n", n->acc_type, n->acc, n->acc_init, op_name(n->op));
    else kr_buf_printf(o, "  acc       %s (in memory), op %s\n", kr_node_text_flat(t, n->refs.data[n->acc_ref].node, a), op_name(n->op));
    kr_buf_printf(o, "  update    %s", kr_node_text_flat(t, n->update, a));
    if (!ts_node_is_null(n->update_cond)) kr_buf_printf(o, "  (if %s)", kr_node_text_flat(t, n->update_cond, a));
    kr_buf_puts(o, "\n");
  }
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    kr_buf_printf(o, "  %-9s %s[%s]%s", r->write ? "write" : "read", r->array, kr_nest_form_text(n, &r->index, a),
                  r->in_loop ? "  (in the loop)" : "");
    if (r->cond && r->range) range_text(n, r, o, a);
    kr_buf_puts(o, "\n");
  }
  for (size_t i = 0; i < n->epilogue.len; i++)
    kr_buf_printf(o, "  epilogue  %s\n", kr_node_text_flat(t, n->epilogue.data[i], a));
  kr_arena_free(a);
}

void kr_nest_json(const KrNest *n, const KrTree *t, KrBuf *o) {
  KrArena *a = kr_arena_new();
  kr_buf_puts(o, "{\"kernel\": "), kr_buf_json_str(o, n->kernel->name);
  kr_buf_puts(o, ", \"axes\": [");
  for (size_t i = 0; i < n->axes.len; i++) {
    const KrNestAxis *x = &n->axes.data[i];
    kr_buf_printf(o, "%s{\"name\": ", i ? ", " : "");
    kr_buf_json_str(o, x->name);
    kr_buf_printf(o, ", \"kind\": \"%s\", \"dim\": %d, \"lo\": ", x->kind == KR_AXIS_REDUCE ? "reduce" : "parallel", x->dim);
    kr_buf_json_str(o, x->lo);
    kr_buf_puts(o, ", \"hi\": "), kr_buf_json_str(o, x->hi);
    kr_buf_puts(o, ", \"flat\": "), kr_buf_json_str(o, x->flat);
    kr_buf_printf(o, ", \"line\": %u}", line_of(t, x->at));
  }
  kr_buf_puts(o, "], \"guards\": [");
  for (size_t i = 0; i < n->guards.len; i++) {
    kr_buf_puts(o, i ? ", " : "");
    kr_buf_json_str(o, n->guards.data[i].text);
  }
  kr_buf_printf(o, "], \"batch\": %s, \"op\": \"%s\", \"acc\": ", n->batch ? "true" : "false", op_name(n->op));
  kr_buf_json_str(o, n->acc);
  kr_buf_puts(o, ", \"refs\": [");
  for (size_t i = 0; i < n->refs.len; i++) {
    const KrNestRef *r = &n->refs.data[i];
    kr_buf_printf(o, "%s{\"array\": ", i ? ", " : "");
    kr_buf_json_str(o, r->array);
    kr_buf_printf(o, ", \"write\": %s, \"in_loop\": %s, \"index\": ", r->write ? "true" : "false", r->in_loop ? "true" : "false");
    kr_buf_json_str(o, kr_nest_form_text(n, &r->index, a));
    kr_buf_printf(o, ", \"cond\": %s}", r->cond ? "true" : "false");
  }
  kr_buf_puts(o, "]}");
  kr_arena_free(a);
}
