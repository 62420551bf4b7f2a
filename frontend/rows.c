/* frontend/rows.c: lifting a row-reduction kernel into its row nest (rows.h). One walk over the
 * body: the row's thread map and guard, then each statement of the row's work classified as a row
 * loop (read by `loop`) or a statement run once per row; the block form's shared-memory tree is
 * read as the reduction it computes, and the element form's store into it as the row loop it
 * stands for. */
#include "frontend/rows.h"

#include <stdarg.h>
#include <string.h>

#include "frontend/affine.h"
#include "frontend/consteval.h"
#include "frontend/loops.h"
#include "frontend/types.h"

typedef struct Lift {
  const KrTree *t;
  const KrKernel *k;
  KrArena *a;
  KrRows *r;
  KrAffineCtx *ac;
  KrLoops *lx;
  const char *why;
  uint32_t at;
  int pending;               /* block form: the accumulator stored into shared memory, not yet reduced */
  int reduced;               /* block form: the accumulator the tree last reduced (what buf[0] is) */
  bool row_body;             /* past the row's map and guard */
  bool has_shared;           /* the kernel declares a shared array: a thread map is an element index */
  bool row_builtin;          /* elements: blockIdx.x is read as the row (in a row's statement) */
  int elem_acc;              /* elements: the accumulator the lift made; -1 before the element's store */
  int elem_item;             /* elements: its declaration's item (the row loop follows) */
  const char *elem_type;     /* elements: the element index's type */
  const char *stride;        /* elements: the rows' distance in elements (blockDim.x: block_size) */
  const char *pad;           /* elements: what the store writes past the bound, or NULL */
  const char *shared_type;   /* the shared array's element type */
  TSNode elem_decl;
} Lift;

static bool is(const Lift *L, TSNode n, TSSymbol s) { return !ts_node_is_null(n) && ts_node_symbol(n) == s; }
static const char *text(Lift *L, TSNode n) { return kr_node_text_flat(L->t, n, L->a); }
static TSNode field(TSNode n, const char *name) { return kr_node_field(n, name); }
static TSNode unparen(Lift *L, TSNode n) { return kr_node_strip_parens(L->t, n); }
static const char *op_of(Lift *L, TSNode n) { return kr_node_operator(L->t, n, L->a); }

/* The index of a subscript_expression. */
static TSNode subscript(TSNode n) { return ts_node_named_child(field(n, "indices"), 0); }

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

int kr_rows_acc(const KrRows *r, const char *name) {
  for (size_t i = 0; i < r->accs.len; i++)
    if (strcmp(r->accs.data[i].name, name) == 0) return (int)i;
  return -1;
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

/* A local of the kernel declared outside `inside` (a loop), or NULL. */
static const char *outer_local(Lift *L, TSNode id, TSNode inside) {
  if (!is(L, id, L->t->sym.identifier)) return NULL;
  KrBinding b = kr_resolve(L->t, L->k, id);
  if (b.kind != KR_BIND_LOCAL || ts_node_is_null(b.decl)) return NULL;
  uint32_t at = ts_node_start_byte(b.decl);
  if (!ts_node_is_null(inside) && at >= ts_node_start_byte(inside) && at < ts_node_end_byte(inside)) return NULL;
  return kr_node_text(L->t, id, L->a);
}

/* A name for something the lift makes up (the row of a kernel without one, the element form's
 * accumulator and launch values): `base`, or base_N, that the file does not use. */
static const char *fresh_name(Lift *L, const char *base) {
  const char *name = base;
  for (int i = 1; kr_loops_name_used(L->lx, name); i++) name = kr_arena_printf(L->a, "%s_%d", base, i);
  return name;
}

/* ---- What the scan refuses ------------------------------------------------------------------------------ */

static const char *const kRefused[] = {"atomic", "__syncwarp", "__shfl", "__ballot", "__any", "__all",
                                       "__threadfence", "cooperative_groups", "__activemask", "__reduce"};

static bool is_shared(Lift *L, TSNode id) {
  if (!L->r->shared || !is(L, id, L->t->sym.identifier)) return false;
  return kr_node_text_is(L->t, id, L->r->shared);
}

/* Refuses what no row nest models anywhere in `n`: atomics, warp intrinsics, assembly, other loops,
 * barriers (block form: only where `statement` allows them, so not inside n), shared memory. */
static bool plain(Lift *L, TSNode n, bool allow_shared) {
  const KrSyms *s = &L->t->sym;
  TSSymbol y = ts_node_symbol(n);
  if (y == s->call_expression) {
    const char *callee = text(L, field(n, "function"));
    for (size_t i = 0; i < sizeof kRefused / sizeof kRefused[0]; i++)
      if (strncmp(callee, kRefused[i], strlen(kRefused[i])) == 0)
        return fail(L, n, "'%s' is a call the row nest does not model (atomics and warp intrinsics "
                          "are left to text passes)", callee);
    if (strcmp(callee, "__syncthreads") == 0) return fail(L, n, "a barrier where the row nest does not read one");
    const char *name = kr_node_callee(L->t, n, L->a);
    if (name && kr_loops_is_macro(L->lx, name))
      return fail(L, n, "'%s' is a macro call in the row's work (what it reads and writes is not seen; "
                        "expand_macros writes it out first)", name);
    TSNode fn = name ? kr_tree_function(L->t, name) : (TSNode){0};
    bool collective;
    const char *why = ts_node_is_null(fn) ? NULL : kr_tree_function_effect(L->t, fn, &collective, L->a);
    if (why)   /* a helper that only computes a value is read as an expression */
      return fail(L, n, "'%s' calls function '%s' of this file in the row's work, which the row nest cannot move: %s",
                  text(L, n), name, why);
  }
  if (y == s->gnu_asm_expression) return fail(L, n, "inline assembly");
  if (y == s->field_expression && !(L->row_builtin && kr_node_text_is(L->t, n, "blockIdx.x"))) {
    const char *o = text(L, field(n, "argument"));
    if (!strcmp(o, "threadIdx") || !strcmp(o, "blockIdx") || !strcmp(o, "blockDim") || !strcmp(o, "gridDim"))
      return fail(L, n, "'%s' is used directly in the row's work (its meaning changes with the launch; the row nest "
                        "reads the thread only through the row's index)", text(L, n));
  }
  if (y == s->while_statement || y == s->do_statement || y == s->for_range_loop || y == s->goto_statement)
    return fail(L, n, "a loop other than a counted for loop");
  if (y == s->for_statement) return fail(L, n, "a loop inside a statement of the row's work (a row loop is a "
                                               "statement of its own)");
  if (y == s->return_statement) return fail(L, n, "a return inside the row's work");
  if (y == s->break_statement) return fail(L, n, "a break in the row's work (a strided loop would stop in each thread "
                                                 "at its own element)");
  if (!allow_shared && is_shared(L, n)) return fail(L, n, "shared memory ('%s') used other than as a reduction tree", L->r->shared);
  KrChildren it;
  for (TSNode c = kr_children_first(&it, n); !ts_node_is_null(c); c = kr_children_next(&it))
    if (!plain(L, c, allow_shared)) {
      kr_children_end(&it);
      return false;
    }
  kr_children_end(&it);
  return true;
}

/* ---- The row's thread map ------------------------------------------------------------------------------- */

static bool only_var(const KrAffine *f, const char *var, long long coef) {
  return f->ok && f->terms.len == 1 && f->terms.data[0].var && strcmp(f->terms.data[0].var, var) == 0 &&
         f->terms.data[0].coef == coef && f->terms.data[0].nsyms == 0;
}

/* The block size of a thread map blockIdx.x * B + threadIdx.x at byte `at`: 0 when B is blockDim.x,
 * B when it is a literal or a name bound to a constant the file shows (a #define, a const or
 * constexpr integer), -1 when f is not a thread map. */
static long long thread_map_at(Lift *L, const KrAffine *f, uint32_t at) {
  if (!f->ok || f->terms.len != 2) return -1;
  const KrAffTerm *b = NULL, *t = NULL;
  for (size_t i = 0; i < 2; i++) {
    const KrAffTerm *x = &f->terms.data[i];
    if (x->var && strcmp(x->var, "blockIdx.x") == 0) b = x;
    if (x->var && strcmp(x->var, "threadIdx.x") == 0) t = x;
  }
  if (!b || !t || t->coef != 1 || t->nsyms) return -1;
  if (b->nsyms == 0) return b->coef > 0 ? b->coef : -1;
  if (b->nsyms != 1 || b->coef != 1) return -1;
  if (strcmp(b->syms[0], "blockDim.x") == 0) return 0;
  long long v;
  return kr_const_of_name(kr_loops_scope(L->lx), b->syms[0], at, &v, NULL) && v > 0 ? v : -1;
}

static bool uses_thread(Lift *L, TSNode n) {
  const char *t = text(L, n);
  return strstr(t, "threadIdx") || strstr(t, "blockIdx") || (L->r->row && mentions(L, n, L->r->row)) ||
         (L->r->tid && mentions(L, n, L->r->tid));
}

/* True when the local declared by `name` (an identifier in its declarator) is assigned or
 * incremented anywhere in `n`. */
static bool assigned(Lift *L, TSNode n, TSNode name) {
  const KrSyms *s = &L->t->sym;
  if (is(L, n, s->assignment_expression) || is(L, n, s->update_expression)) {
    TSNode t = unparen(L, field(n, is(L, n, s->update_expression) ? "argument" : "left"));
    if (is(L, t, s->identifier)) {
      KrBinding b = kr_resolve(L->t, L->k, t);
      if (b.kind == KR_BIND_LOCAL && ts_node_eq(b.name, name)) return true;
    }
  }
  for (uint32_t i = 0; i < ts_node_child_count(n); i++)
    if (assigned(L, ts_node_child(n, i), name)) return true;
  return false;
}

/* A value every thread of the launch computes alike without reading memory. */
static bool uniform_value(Lift *L, TSNode v) {
  const char *t = text(L, v);
  return !strchr(t, '[') && !strstr(t, "->");
}

/* The declaration declares one name (`int row = …;`, `const int tid = …;`). */
static bool alone(TSNode st) {
  int n = 0;
  for (uint32_t i = 0; i < ts_node_child_count(st); i++) {
    const char *f = ts_node_field_name_for_child(st, i);
    n += f && strcmp(f, "declarator") == 0;
  }
  return n == 1;
}

/* `int i = blockIdx.x * blockDim.x + threadIdx.x;` in a kernel with a shared array: the element
 * form's element index. Its row is the block (a name of its own), whose elements start at
 * row * stride. */
static bool element_index(Lift *L, TSNode st, const char *name, long long block) {
  if (!alone(st)) return fail(L, st, "declare the element's index on its own");
  KrRows *r = L->r;
  r->map = KR_ROWS_BLOCK, r->elements = true, r->elem = name, r->row_decl = st;
  r->row = fresh_name(L, "kr_row");
  r->block_size = fresh_name(L, "kr_block"), r->row_count = fresh_name(L, "kr_rows");
  L->elem_decl = st;
  L->elem_type = text(L, field(st, "type"));
  L->stride = block == 0 ? r->block_size : kr_arena_printf(L->a, "%lld", block);
  return true;
}

/* A declaration before the row's work: the row, the thread index, or a uniform value. */
static bool head_decl(Lift *L, TSNode st) {
  const KrSyms *s = &L->t->sym;
  uint32_t nd = ts_node_named_child_count(st);
  for (uint32_t i = 0; i < nd; i++) {
    TSNode d = ts_node_named_child(st, i);
    if (!is(L, d, s->init_declarator)) continue;
    TSNode id = field(d, "declarator"), v = field(d, "value");
    if (ts_node_is_null(v)) continue;
    if (!is(L, id, s->identifier)) {   /* `const float *xr = x + row * n;`: uniform only if it is */
      id = kr_declarator_name(L->t, id);
      if (!ts_node_is_null(id) && (uses_thread(L, v) || assigned(L, L->k->body, id) || !uniform_value(L, v))) return false;
      continue;
    }
    const KrAffine *f = kr_affine_of(L->ac, v);
    const char *name = kr_node_text(L->t, id, L->a);
    long long block = thread_map_at(L, f, ts_node_start_byte(v));
    if (!L->r->row && block >= 0 && L->has_shared) return element_index(L, st, name, block);
    if (!L->r->row && block >= 0) {
      L->r->map = KR_ROWS_THREAD, L->r->row = name, L->r->row_decl = st;
      return alone(st) || fail(L, st, "declare the row's index on its own");
    }
    if (!L->r->row && (only_var(f, "blockIdx.x", 1) || only_var(f, "blockIdx.y", 1))) {
      L->r->map = KR_ROWS_BLOCK, L->r->row = name, L->r->row_decl = st;
      if ((L->r->row_y = only_var(f, "blockIdx.y", 1)) && strstr(text(L, L->k->body), "blockIdx.x"))
        return fail(L, st, "the row is blockIdx.y, and the kernel reads blockIdx.x too (the rewrite walks a row with "
                           "a block of a one-dimensional grid)");
      return alone(st) || fail(L, st, "declare the row's index on its own");
    }
    if (!L->r->tid && only_var(f, "threadIdx.x", 1)) {
      L->r->tid = name;
      return alone(st) || fail(L, st, "declare the thread's index on its own");
    }
    if (uses_thread(L, v) || assigned(L, L->k->body, id) || !uniform_value(L, v)) return false;   /* the row's work */
  }
  kr_vec_push(L->a, &L->r->uniform, st);
  return true;
}

/* ---- Row loops ------------------------------------------------------------------------------------------ */

/* A block-form loop's step by a positive integer constant C (`j += THREADS`, THREADS a macro or a
 * literal) instead of blockDim.x: the block size the original was written for, recorded (every
 * such step and tree start must agree); the rewrite walks the row whatever its own block. */
static bool block_constant(Lift *L, TSNode e, long long times) {
  long long c;
  if (!kr_loops_const(L->lx, e, &c) || c <= 0) return false;
  const char *v = kr_arena_printf(L->a, "%lld", c * times);
  if (L->r->block_const && strcmp(L->r->block_const, v)) return false;
  L->r->block_const = v;
  return true;
}

/* What a loop's step adds to v (`v += S`, `v = v + S`, `v = S + v`: S), or a null node; `v++` and
 * `++v` set *one instead. */
static TSNode step_amount(Lift *L, TSNode step, const char *v, bool *one) {
  TSNode none = {0};
  *one = is(L, step, L->t->sym.update_expression) && strstr(text(L, step), "++");
  if (!is(L, step, L->t->sym.assignment_expression)) return none;
  TSNode left = unparen(L, field(step, "left")), right = unparen(L, field(step, "right"));
  if (!is(L, left, L->t->sym.identifier) || !kr_node_text_is(L->t, left, v)) return none;
  if (!strcmp(op_of(L, step), "+=")) return right;
  if (strcmp(op_of(L, step), "=") || !is(L, right, L->t->sym.binary_expression) || strcmp(op_of(L, right), "+")) return none;
  TSNode a0 = unparen(L, field(right, "left")), a1 = unparen(L, field(right, "right"));
  if (is(L, a0, L->t->sym.identifier) && kr_node_text_is(L->t, a0, v)) return a1;
  if (is(L, a1, L->t->sym.identifier) && kr_node_text_is(L->t, a1, v)) return a0;
  return none;
}

/* The loop's step by a constant block size (`j += THREADS`): recorded by block_constant. */
static bool const_step(Lift *L, TSNode step, const char *v) {
  bool one;
  TSNode by = step_amount(L, step, v, &one);
  return !ts_node_is_null(by) && block_constant(L, by, 1);
}

/* The loop's step: 1 (thread form) or blockDim.x (block form). */
static bool step_is(Lift *L, TSNode step, const char *v, const char *want) {
  bool one;
  TSNode by = step_amount(L, step, v, &one);
  if (one) return strcmp(want, "1") == 0;
  return !ts_node_is_null(by) && strcmp(text(L, by), want) == 0;
}

static bool is_tid(Lift *L, TSNode n) {
  n = unparen(L, n);
  return (L->r->tid && is(L, n, L->t->sym.identifier) && kr_node_text_is(L->t, n, L->r->tid)) ||
         kr_node_text_is(L->t, n, "threadIdx.x");
}

static bool fma_call(const char *f) {
  return !strcmp(f, "fmaf") || !strcmp(f, "fma") || !strcmp(f, "__fmaf_rn") || !strcmp(f, "__fma_rn");
}

static KrRedOp call_op(const char *f) {
  if (!strcmp(f, "fmaxf") || !strcmp(f, "max") || !strcmp(f, "fmax")) return KR_RED_MAX;
  if (!strcmp(f, "fminf") || !strcmp(f, "min") || !strcmp(f, "fmin")) return KR_RED_MIN;
  return KR_RED_NONE;
}

/* The accumulator `name` declared at row level: its record (new, or refused when a second loop
 * updates it). */
static KrRowAcc *acc_new(Lift *L, TSNode id, TSNode st, int item) {
  KrBinding b = kr_resolve(L->t, L->k, id);
  const char *name = kr_node_text(L->t, id, L->a);
  if (kr_rows_acc(L->r, name) >= 0) return fail(L, st, "'%s' is accumulated by two loops", name), NULL;
  TSNode decl = b.decl;
  if (!is(L, decl, L->t->sym.declaration)) return fail(L, st, "'%s' is not declared as a local", name), NULL;
  TSNode d = field(decl, "declarator");
  if (!is(L, d, L->t->sym.init_declarator) || ts_node_named_child_count(decl) != 2)
    return fail(L, decl, "the accumulator '%s' is not declared alone with a value", name), NULL;
  KrRowAcc a = {.name = name, .type = text(L, field(decl, "type")), .init = text(L, field(d, "value")),
                .arg = -1, .of = -1, .decl = decl, .update = st, .item = item, .result = name};
  kr_vec_push(L->a, &L->r->accs, a);
  return &L->r->accs.data[L->r->accs.len - 1];
}

/* `acc += e`, `acc -= e`, `acc = acc + e`, `acc = e + acc`, `acc = fmaxf(acc, e)`, … */
static bool acc_update(Lift *L, TSNode st, TSNode e, TSNode loop, int item) {
  const KrSyms *s = &L->t->sym;
  const char *op = op_of(L, e);
  TSNode left = unparen(L, field(e, "left")), right = field(e, "right");
  const char *acc = outer_local(L, left, loop);
  if (!acc) return false;
  KrRedOp rop = KR_RED_NONE;
  TSNode value = right;
  const char *fn = NULL;
  bool negate = false, fma = false;
  if (!strcmp(op, "+=") || !strcmp(op, "-=")) rop = KR_RED_SUM, negate = op[0] == '-';
  else if (!strcmp(op, "=")) {
    TSNode r = unparen(L, right);
    if (is(L, r, s->binary_expression) && !strcmp(op_of(L, r), "+")) {
      TSNode a0 = unparen(L, field(r, "left")), a1 = unparen(L, field(r, "right"));
      if (is(L, a0, s->identifier) && kr_node_text_is(L->t, a0, acc)) rop = KR_RED_SUM, value = field(r, "right");
      else if (is(L, a1, s->identifier) && kr_node_text_is(L->t, a1, acc)) rop = KR_RED_SUM, value = field(r, "left");
    } else if (is(L, r, s->call_expression) && ts_node_named_child_count(field(r, "arguments")) == 3 &&
               fma_call(text(L, field(r, "function")))) {
      /* acc = fmaf(a, b, acc): a sum of a * b, each term added with the fused multiply-add's one
       * rounding; a thread's partial keeps the statement, the partials add. */
      TSNode args = field(r, "arguments"), a2 = unparen(L, ts_node_named_child(args, 2));
      if (is(L, a2, s->identifier) && kr_node_text_is(L->t, a2, acc)) {
        for (uint32_t i = 0; i < 2; i++)
          if (mentions(L, ts_node_named_child(args, i), acc))
            return fail(L, st, "the accumulator '%s' appears inside its own update '%s'", acc, text(L, st));
        rop = KR_RED_SUM, fma = true, value = r;
      }
    } else if (is(L, r, s->call_expression) && ts_node_named_child_count(field(r, "arguments")) == 2) {
      fn = text(L, field(r, "function"));
      TSNode args = field(r, "arguments");
      TSNode a0 = unparen(L, ts_node_named_child(args, 0)), a1 = unparen(L, ts_node_named_child(args, 1));
      KrRedOp c = call_op(fn);
      if (c && is(L, a0, s->identifier) && kr_node_text_is(L->t, a0, acc)) rop = c, value = ts_node_named_child(args, 1);
      else if (c && is(L, a1, s->identifier) && kr_node_text_is(L->t, a1, acc)) rop = c, value = ts_node_named_child(args, 0);
    }
  }
  if (!rop) return fail(L, st, "'%s' is a loop-carried value that is not an accumulator (+, max, min, fmaf)", text(L, st));
  if (!fma && mentions(L, value, acc)) return fail(L, st, "the accumulator '%s' appears inside its own update '%s'", acc, text(L, st));
  KrType at = kr_loops_type(L->lx, left), vt = kr_loops_type(L->lx, value);
  if (rop == KR_RED_SUM && kr_ty_is_integer(at.cls) && !kr_ty_is_integer(vt.cls))
    return fail(L, st, "the integer accumulator '%s' adds terms that are not integers (each step rounds, so the "
                       "sum cannot be reassociated)", acc);
  KrRowAcc *a = acc_new(L, left, st, item);
  if (!a) return false;
  a->op = rop, a->value = value, a->fn = rop == KR_RED_SUM ? NULL : fn, a->negate = negate, a->fma = fma;
  return true;
}

/* `if (v CMP m) { m = v; arg = j; }`: a value and an index accumulator. */
static bool arg_update(Lift *L, TSNode st, TSNode loop, int item) {
  const KrSyms *s = &L->t->sym;
  TSNode c = unparen(L, field(field(st, "condition"), "value"));
  if (ts_node_is_null(c)) c = unparen(L, field(st, "condition"));
  TSNode body = field(st, "consequence");
  if (!ts_node_is_null(field(st, "alternative")) || !is(L, c, s->binary_expression)) return false;
  const char *cmp = op_of(L, c);
  if (strcmp(cmp, ">") && strcmp(cmp, ">=") && strcmp(cmp, "<") && strcmp(cmp, "<=")) return false;
  TSNode v = field(c, "left"), m = unparen(L, field(c, "right"));
  const char *mv = outer_local(L, m, loop);
  if (!mv || !is(L, body, s->compound_statement) || ts_node_named_child_count(body) != 2) return false;
  TSNode set[2] = {ts_node_named_child(body, 0), ts_node_named_child(body, 1)};
  TSNode as[2];
  for (int i = 0; i < 2; i++) {
    as[i] = ts_node_named_child(set[i], 0);
    if (!is(L, set[i], s->expression_statement) || !is(L, as[i], s->assignment_expression) || strcmp(op_of(L, as[i]), "="))
      return false;
  }
  int vi = -1;
  for (int i = 0; i < 2; i++)
    if (kr_node_text_is(L->t, unparen(L, field(as[i], "left")), mv)) vi = i;
  if (vi < 0 || strcmp(text(L, field(as[vi], "right")), text(L, v))) return false;
  TSNode idx = unparen(L, field(as[1 - vi], "left"));
  TSNode iv = unparen(L, field(as[1 - vi], "right"));
  const char *var = kr_node_text(L->t, field(field(field(loop, "initializer"), "declarator"), "declarator"), L->a);
  if (!is(L, iv, s->identifier) || !var || !kr_node_text_is(L->t, iv, var))
    return fail(L, st, "the index of an arg-max update is set to '%s', not to the loop's counter '%s'",
                text(L, iv), var ? var : "?");
  if (!outer_local(L, idx, loop) || mentions(L, field(as[1 - vi], "right"), mv) ||
      mentions(L, field(as[1 - vi], "right"), kr_node_text(L->t, idx, L->a)))
    return false;
  if (mentions(L, v, mv)) return false;
  KrRowAcc *a = acc_new(L, m, st, item);
  if (!a) return false;
  a->op = strchr(cmp, '>') ? KR_RED_MAX : KR_RED_MIN, a->cmp = cmp, a->value = v;
  int ai = (int)L->r->accs.len - 1;
  KrRowAcc *x = acc_new(L, idx, st, item);
  if (!x) return false;
  x->op = KR_RED_NONE, x->of = ai, x->value = field(as[1 - vi], "right");
  L->r->accs.data[ai].arg = (int)L->r->accs.len - 1;
  return true;
}

/* Every store of `st` (inside a row loop): its index moves with `var`. */
static bool stores_ok(Lift *L, TSNode n, KrRowItem *it, TSNode loop) {
  const KrSyms *s = &L->t->sym;
  if (is(L, n, s->assignment_expression) || is(L, n, s->update_expression)) {
    TSNode t = unparen(L, field(n, is(L, n, s->update_expression) ? "argument" : "left"));
    if (is(L, t, s->subscript_expression)) {
      TSNode arr = unparen(L, field(t, "argument"));
      KrBinding b = kr_resolve(L->t, L->k, arr);
      if (b.kind == KR_BIND_LOCAL)
        return fail(L, n, "a store to '%s', a pointer local (inline_pointers writes its uses as indices of the "
                          "parameter it points into)", text(L, arr));
      if (b.kind != KR_BIND_PARAM) return fail(L, n, "a store to '%s', which is not a pointer parameter", text(L, arr));
      TSNode ix = subscript(t);
      const KrAffine *f = kr_affine_of(L->ac, ix);
      long long c = 0;
      /* A coefficient that is an integer other than 0, or a product of symbols (`B[i * N + c]`,
       * N a size: it moves by N): distinct elements for distinct j. */
      bool moves = f->ok && (kr_affine_coef(f, it->var, &c) ? c != 0 : strcmp(kr_affine_coef_text(f, it->var, L->a), "0") != 0);
      if (!moves)
        return fail(L, n, "the store '%s' in a row loop does not move with '%s' (or its index is not "
                          "affine: the elements of a row would collide)", text(L, n), it->var);
      kr_vec_push(L->a, &it->writes, text(L, arr));
    } else if (outer_local(L, t, loop)) {
      return false;   /* the caller reads it as an accumulator update */
    }
  }
  KrChildren ci;
  for (TSNode c = kr_children_first(&ci, n); !ts_node_is_null(c); c = kr_children_next(&ci))
    if (!stores_ok(L, c, it, loop)) {
      kr_children_end(&ci);
      return false;
    }
  kr_children_end(&ci);
  return true;
}

/* Reads of an array the loop stores, at an index other than the store's. */
static bool reads_ok(Lift *L, TSNode n, const KrRowItem *it, TSNode store_ix) {
  const KrSyms *s = &L->t->sym;
  if (is(L, n, s->subscript_expression)) {
    TSNode arr = unparen(L, field(n, "argument"));
    for (size_t w = 0; w < it->writes.len; w++)
      if (kr_node_text_is(L->t, arr, it->writes.data[w]) && !ts_node_is_null(store_ix)) {
        TSNode ix = subscript(n);
        if (!kr_affine_equal(kr_affine_of(L->ac, ix), kr_affine_of(L->ac, store_ix)))
          return fail(L, n, "'%s' reads an element of '%s' that another iteration of the row loop stores",
                      text(L, n), it->writes.data[w]);
      }
  }
  KrChildren ci;
  for (TSNode c = kr_children_first(&ci, n); !ts_node_is_null(c); c = kr_children_next(&ci))
    if (!reads_ok(L, c, it, store_ix)) {
      kr_children_end(&ci);
      return false;
    }
  kr_children_end(&ci);
  return true;
}

/* The first store's index in `n`, for reads_ok. */
static TSNode store_index(Lift *L, TSNode n) {
  const KrSyms *s = &L->t->sym;
  if (is(L, n, s->assignment_expression)) {
    TSNode t = unparen(L, field(n, "left"));
    if (is(L, t, s->subscript_expression)) return subscript(t);
  }
  for (uint32_t i = 0; i < ts_node_child_count(n); i++) {
    TSNode r = store_index(L, ts_node_child(n, i));
    if (!ts_node_is_null(r)) return r;
  }
  return (TSNode){0};
}

static bool loop(Lift *L, TSNode lp) {
  const KrSyms *s = &L->t->sym;
  TSNode init = field(lp, "initializer"), cond = unparen(L, field(lp, "condition")), step = field(lp, "update"),
         body = field(lp, "body");
  KrRowItem it = {.kind = KR_ROW_LOOP, .node = lp, .body = body, .acc = -1};
  TSNode d = field(init, "declarator"), id = field(d, "declarator");
  if (!is(L, init, s->declaration) || ts_node_named_child_count(init) != 2 || !is(L, d, s->init_declarator) ||
      !is(L, id, s->identifier))
    return fail(L, lp, "the row loop does not declare one counter (for (int j = lo; j < hi; j++))");
  it.var = kr_node_text(L->t, id, L->a);
  it.var_type = text(L, field(init, "type"));
  TSNode v0 = unparen(L, field(d, "value"));
  bool block = L->r->map == KR_ROWS_BLOCK;
  if (block) {
    if (is_tid(L, v0)) it.lo = "0";
    else if (is(L, v0, s->binary_expression) && !strcmp(op_of(L, v0), "+") && is_tid(L, field(v0, "left")))
      it.lo = text(L, field(v0, "right")), it.lo_node = field(v0, "right");
    else if (is(L, v0, s->binary_expression) && !strcmp(op_of(L, v0), "+") && is_tid(L, field(v0, "right")))
      it.lo = text(L, field(v0, "left")), it.lo_node = field(v0, "left");
    else if (L->r->single) return fail(L, init, "no row index (blockIdx.x, or blockIdx.x * blockDim.x + threadIdx.x), and a "
                                       "loop that does not start at the thread's index, as one row walked by the "
                                       "block would (for (int j = threadIdx.x; j < n; j += blockDim.x))");
    else return fail(L, init, "a loop of a block-per-row kernel that does not start at the thread's index "
                              "(for (int j = threadIdx.x; j < n; j += blockDim.x))");
    if (!step_is(L, step, it.var, "blockDim.x") && !const_step(L, step, it.var))
      return fail(L, step, "a loop of a %s kernel that does not step by blockDim.x or a constant ('%s')",
                  L->r->single ? "one-row (no row index)" : "block-per-row", text(L, step));
  } else {
    it.lo = text(L, v0), it.lo_node = v0;
    if (!step_is(L, step, it.var, "1")) return fail(L, step, "the row loop's step '%s' is not 1", text(L, step));
  }
  if (!ts_node_is_null(it.lo_node) && (strstr(it.lo, "threadIdx") || strstr(it.lo, "blockDim") || (L->r->tid && mentions(L, it.lo_node, L->r->tid))))
    return fail(L, init, "the row loop's start '%s' depends on the thread", it.lo);
  TSNode cl = unparen(L, field(cond, "left")), cr = field(cond, "right");
  if (!is(L, cond, s->binary_expression) || strcmp(op_of(L, cond), "<") || !is(L, cl, s->identifier) ||
      !kr_node_text_is(L->t, cl, it.var))
    return fail(L, cond, "the row loop's condition '%s' is not '%s < bound'", text(L, cond), it.var);
  if (mentions(L, cr, it.var) || strstr(text(L, cr), "threadIdx") || strstr(text(L, cr), "blockDim") ||
      strstr(text(L, cr), "gridDim") || (L->r->tid && mentions(L, cr, L->r->tid)))
    return fail(L, cr, "the row loop's bound '%s' is not the same for the whole row", text(L, cr));
  it.hi = text(L, cr), it.hi_node = cr;
  int item = (int)L->r->items.len;
  if (L->r->elements && mentions(L, lp, L->r->elem))
    return fail(L, lp, "a loop reads the element's index '%s' outside its store into shared memory", L->r->elem);
  if (block && L->r->tid && mentions(L, body, L->r->tid))
    return fail(L, body, "the row loop's body reads the thread's index '%s' other than through '%s'", L->r->tid, it.var);
  /* The body. */
  size_t nst = is(L, body, s->compound_statement) ? ts_node_named_child_count(body) : 1;
  for (size_t i = 0; i < nst; i++) {
    TSNode c = is(L, body, s->compound_statement) ? ts_node_named_child(body, (uint32_t)i) : body;
    if (is(L, c, s->comment)) continue;
    if (is(L, c, s->for_statement)) return fail(L, c, "a loop nested in a row loop");
    if (!plain(L, c, false)) return false;
    if (is(L, c, s->declaration)) continue;
    size_t nacc = L->r->accs.len;
    if (is(L, c, s->if_statement) && arg_update(L, c, lp, item)) {
      kr_vec_push(L->a, &it.accs, (int)nacc);
      kr_vec_push(L->a, &it.accs, (int)nacc + 1);
      continue;
    }
    if (L->why) return false;
    TSNode e = is(L, c, s->expression_statement) ? ts_node_named_child(c, 0) : (TSNode){0};
    if (is(L, e, s->assignment_expression) && outer_local(L, unparen(L, field(e, "left")), lp)) {
      if (!acc_update(L, c, e, lp, item)) return false;
      kr_vec_push(L->a, &it.accs, (int)nacc);
      continue;
    }
    if (!stores_ok(L, c, &it, lp))
      return L->why ? false : fail(L, c, "'%s' is a loop-carried value that is not an accumulator", text(L, c));
  }
  /* Accumulators are read only by their own update. */
  for (size_t a = 0; a < it.accs.len; a++) {
    const KrRowAcc *x = &L->r->accs.data[it.accs.data[a]];
    for (size_t i = 0; i < nst; i++) {
      TSNode c = is(L, body, s->compound_statement) ? ts_node_named_child(body, (uint32_t)i) : body;
      if (ts_node_eq(c, x->update)) continue;
      if (mentions(L, c, x->name)) return fail(L, c, "the accumulator '%s' is read inside its loop", x->name);
    }
  }
  if (it.writes.len && !reads_ok(L, body, &it, store_index(L, body))) return false;
  if (!it.accs.len && !it.writes.len) return fail(L, lp, "the row loop neither accumulates nor stores");
  if (!L->r->at) L->r->at = ts_node_start_byte(lp);
  kr_vec_push(L->a, &L->r->items, it);
  return true;
}

/* ---- The block form's shared-memory tree ------------------------------------------------------------ */

static bool is_sync(Lift *L, TSNode st) {
  TSNode e = ts_node_named_child(st, 0);
  return is(L, st, L->t->sym.expression_statement) && is(L, e, L->t->sym.call_expression) &&
         kr_node_text_is(L->t, field(e, "function"), "__syncthreads");
}

/* `buf[tid] = acc;` */
static bool shared_store(Lift *L, TSNode st) {
  TSNode e = ts_node_named_child(st, 0);
  if (!is(L, st, L->t->sym.expression_statement) || !is(L, e, L->t->sym.assignment_expression)) return false;
  TSNode t = unparen(L, field(e, "left"));
  if (!is(L, t, L->t->sym.subscript_expression) || !is_shared(L, unparen(L, field(t, "argument")))) return false;
  TSNode ix = subscript(t);
  TSNode v = unparen(L, field(e, "right"));
  int a = is(L, v, L->t->sym.identifier) ? kr_rows_acc(L->r, kr_node_text(L->t, v, L->a)) : -1;
  if (strcmp(op_of(L, e), "=") || !is_tid(L, ix) || a < 0 || L->r->accs.data[a].op == KR_RED_NONE ||
      L->r->accs.data[a].arg >= 0)
    return fail(L, st, "'%s' is a store to shared memory the row nest does not read (it reads "
                       "'%s[tid] = acc;' before a reduction tree)", text(L, st), L->r->shared);
  L->pending = a;
  return true;
}

/* ---- The element form's store ------------------------------------------------------------------------ */

/* `buf[tid] = v` as an expression: v, else null. */
static TSNode shared_value(Lift *L, TSNode st) {
  if (is(L, st, L->t->sym.compound_statement)) {
    TSNode one = {0};
    for (uint32_t i = 0; i < ts_node_named_child_count(st); i++) {
      TSNode c = ts_node_named_child(st, i);
      if (is(L, c, L->t->sym.comment)) continue;
      if (!ts_node_is_null(one)) return (TSNode){0};
      one = c;
    }
    st = one;
  }
  TSNode e = ts_node_named_child(st, 0);
  if (!is(L, st, L->t->sym.expression_statement) || !is(L, e, L->t->sym.assignment_expression) ||
      strcmp(op_of(L, e), "="))
    return (TSNode){0};
  TSNode t = unparen(L, field(e, "left"));
  if (!is(L, t, L->t->sym.subscript_expression) || !is_shared(L, unparen(L, field(t, "argument"))) ||
      !is_tid(L, subscript(t)))
    return (TSNode){0};
  return field(e, "right");
}

/* `i < n` (or `n > i`), n the same for the whole row: n, else null. */
static TSNode element_bound(Lift *L, TSNode c) {
  const KrSyms *s = &L->t->sym;
  c = unparen(L, c);
  if (!is(L, c, s->binary_expression)) return (TSNode){0};
  const char *op = op_of(L, c);
  TSNode l = unparen(L, field(c, "left")), r = unparen(L, field(c, "right"));
  if (!strcmp(op, ">")) {
    TSNode x = l;
    l = r, r = x;
  } else if (strcmp(op, "<")) {
    return (TSNode){0};
  }
  if (!is(L, l, s->identifier) || !kr_node_text_is(L->t, l, L->r->elem) || mentions(L, r, L->r->elem) ||
      uses_thread(L, r) || !uniform_value(L, r) || strstr(text(L, r), "blockDim") || strstr(text(L, r), "gridDim"))
    return (TSNode){0};
  return r;
}

/* The element form's store of the thread's element, `buf[tid] = i < n ? v : pad;`, `if (i < n)
 * buf[tid] = v; else buf[tid] = pad;` or `buf[tid] = v;`: read as an accumulator (a fresh name,
 * declared here) and the row loop that gives it the row's elements, followed by `buf[tid] = acc;`.
 * The accumulator's combine, and so its start and the loop's text, come from the tree (tree). */
static bool element_store(Lift *L, TSNode st) {
  const KrSyms *s = &L->t->sym;
  const char *form = "a store of the thread's element into shared memory the row nest does not read ('%s[tid] = "
                     "%s < n ? x[%s] : 0;', or the same as if/else)";
  TSNode v = {0}, pad = {0}, cond = {0};
  if (is(L, st, s->expression_statement)) {
    TSNode x = shared_value(L, st);
    TSNode y = unparen(L, x);
    if (is(L, y, s->conditional_expression))
      cond = field(y, "condition"), v = field(y, "consequence"), pad = field(y, "alternative");
    else v = x;
  } else if (is(L, st, s->if_statement)) {
    TSNode alt = field(st, "alternative");
    if (!ts_node_is_null(alt) && !strcmp(ts_node_type(alt), "else_clause")) alt = ts_node_named_child(alt, 0);
    cond = unparen(L, field(field(st, "condition"), "value"));
    if (ts_node_is_null(cond)) cond = field(st, "condition");
    v = shared_value(L, field(st, "consequence"));
    pad = ts_node_is_null(alt) ? alt : shared_value(L, alt);
    if (ts_node_is_null(pad)) v = pad;
  }
  if (ts_node_is_null(v)) return fail(L, st, form, L->r->shared, L->r->elem, L->r->elem);
  TSNode bound = ts_node_is_null(cond) ? cond : element_bound(L, cond);
  if (!ts_node_is_null(cond) && ts_node_is_null(bound))
    return fail(L, cond, "the element's store is guarded by '%s', not by '%s < bound' with a bound the same for the "
                         "whole row", text(L, cond), L->r->elem);
  if (!mentions(L, v, L->r->elem))
    return fail(L, st, "'%s' stores into shared memory a value that does not read the element's index '%s' (the "
                       "element form stores the thread's element: '%s[tid] = %s < n ? x[%s] : 0;')", text(L, st),
                L->r->elem, L->r->shared, L->r->elem, L->r->elem);
  if (!plain(L, v, false) || (!ts_node_is_null(pad) && !plain(L, pad, false))) return false;
  if (L->r->tid && mentions(L, v, L->r->tid))
    return fail(L, v, "the element's value '%s' reads the thread's index '%s' other than through '%s'", text(L, v),
                L->r->tid, L->r->elem);
  /* The accumulator's declaration, then the row loop over the row's elements. */
  KrRows *r = L->r;
  const char *name = fresh_name(L, "kr_acc");
  const char *lo = kr_arena_printf(L->a, "%s * %s", r->row, L->stride);
  const char *end = !strcmp(L->stride, r->block_size) ? kr_arena_printf(L->a, "(%s + 1) * %s", r->row, r->block_size)
                                                      : kr_arena_printf(L->a, "%s + %s", lo, r->block_size);
  const char *b = ts_node_is_null(bound) ? NULL : text(L, bound);
  KrRowAcc a = {.name = name, .type = L->shared_type, .op = KR_RED_NONE, .arg = -1, .of = -1, .decl = st, .update = st,
                .value = v, .item = (int)r->items.len + 1, .result = name};
  kr_vec_push(L->a, &r->accs, a);
  L->elem_acc = (int)r->accs.len - 1, L->elem_item = (int)r->items.len;
  L->pad = ts_node_is_null(pad) ? NULL : text(L, pad);
  KrRowItem d = {.kind = KR_ROW_STMT, .node = st, .acc = L->elem_acc};
  kr_vec_push(L->a, &r->items, d);
  KrRowItem lp = {.kind = KR_ROW_LOOP, .node = st, .var = r->elem, .var_type = L->elem_type, .lo = lo,
                  .hi = b ? kr_arena_printf(L->a, "(%s < (%s) ? %s : (%s))", end, b, end, b) : end, .acc = -1};
  kr_vec_push(L->a, &lp.accs, L->elem_acc);
  kr_vec_push(L->a, &r->items, lp);
  if (!r->at) r->at = ts_node_start_byte(st);
  L->pending = L->elem_acc;
  return true;
}

/* A literal zero: "0", "0.0f", "0.", "0u", … */
static bool is_zero(const char *t) {
  char *end;
  double v = strtod(t, &end);
  return end != t && v == 0 && strspn(end, "fFlLuU") == strlen(end);
}

/* The element form's accumulator, once the tree names its combine (`want_sum`, else the call in
 * `t`): its op, its start (the tree's identity, which the store's padding must be) and the texts
 * of its declaration and of the row loop's body. */
static bool element_combine(Lift *L, TSNode lp, const char *t, bool want_sum) {
  KrRowAcc *a = &L->r->accs.data[L->elem_acc];
  static const char *const fns[] = {"fmaxf", "fminf", "fmax", "fmin", "max", "min"};
  a->op = want_sum ? KR_RED_SUM : KR_RED_NONE;
  for (size_t i = 0; !want_sum && i < sizeof fns / sizeof *fns && !a->op; i++) {
    char want[96];
    snprintf(want, sizeof want, "= %s(%s[", fns[i], L->r->shared);
    if (strstr(t, want)) a->op = call_op(fns[i]), a->fn = fns[i];
  }
  if (!a->op) return fail(L, lp, "'%s' is not a reduction tree the row nest reads (a halving loop with a sum, max or "
                                 "min combine and a barrier)", text(L, lp));
  bool fp = !strcmp(a->type, "float") || !strcmp(a->type, "double");
  const char *id = a->op == KR_RED_SUM ? "0" : a->op == KR_RED_MAX ? "-INFINITY" : "INFINITY";
  if (a->op != KR_RED_SUM && !fp)
    return fail(L, lp, "a %s over '%s' elements of one a thread (the row nest starts a max or a min at -INFINITY or "
                       "INFINITY, so of float or double)", a->fn, a->type);
  const char *p = L->pad;
  bool is_id = !p || (a->op == KR_RED_SUM ? is_zero(p) : !strcmp(p, id) || !strcmp(p, a->op == KR_RED_MAX ? "-HUGE_VALF" : "HUGE_VALF"));
  if (!is_id)
    return fail(L, a->decl, "the element's store writes '%s' past the bound, which is not the identity of the "
                            "tree's %s (%s), so the rows cannot be walked without it", p,
                a->op == KR_RED_SUM ? "sum" : a->fn, id);
  a->init = p ? p : id;
  const char *v = text(L, a->value);
  L->r->items.data[L->elem_item].text = kr_arena_printf(L->a, "%s %s = %s;", a->type, a->name, a->init);
  L->r->items.data[L->elem_item + 1].text = a->op == KR_RED_SUM ? kr_arena_printf(L->a, "%s += %s;", a->name, v)
                                                               : kr_arena_printf(L->a, "%s = %s(%s, %s);", a->name, a->fn, a->name, v);
  return true;
}

/* `for (int s = blockDim.x / 2; s > 0; s /= 2) { if (tid < s) buf[tid] ⊕= buf[tid + s]; __syncthreads(); }` */
static bool tree(Lift *L, TSNode lp) {
  const KrSyms *s = &L->t->sym;
  const char *t = text(L, lp);
  if (L->pending < 0) return fail(L, lp, "a reduction tree over '%s' with no accumulator stored into it", L->r->shared);
  const KrRowAcc *a = &L->r->accs.data[L->pending];   /* (element_combine sets an element form's op) */
  TSNode init = field(lp, "initializer"), d = field(init, "declarator");
  TSNode v0 = unparen(L, field(d, "value"));
  bool half = is(L, v0, s->binary_expression) && kr_node_text_is(L->t, field(v0, "left"), "blockDim.x") &&
              (!strcmp(op_of(L, v0), "/") || !strcmp(op_of(L, v0), ">>"));
  long long c0;
  if (!half && L->r->block_const && kr_loops_const(L->lx, v0, &c0) && 2 * c0 != atoll(L->r->block_const))
    return fail(L, v0, "the tree halves from %lld, but a row loop steps by %s: the kernel is written for two block sizes",
                c0, L->r->block_const);
  bool ok = (half || block_constant(L, v0, 2)) && strstr(t, "__syncthreads") && strstr(t, " > 0");
  /* The combine: `buf[tid] += buf[tid + s]` or `buf[tid] = fn(buf[tid], buf[tid + s])`. */
  char self_sum[96];
  snprintf(self_sum, sizeof self_sum, "] = %s[", L->r->shared);
  const char *want_sum = strstr(t, "] += ") || (strstr(t, self_sum) && strstr(t, "] + ")) ? "+" : NULL;
  if (L->pending == L->elem_acc && !element_combine(L, lp, t, want_sum != NULL)) return false;
  bool fn_ok = false;
  if (a->op != KR_RED_SUM && a->fn) {
    char want[96];
    snprintf(want, sizeof want, "= %s(%s[", a->fn, L->r->shared);
    fn_ok = strstr(t, want) != NULL;
  }
  if (!ok || (a->op == KR_RED_SUM ? !want_sum : !fn_ok))
    return fail(L, lp, "'%s' is not a reduction tree the row nest reads (a halving loop with the "
                       "accumulator's own combine and a barrier)", text(L, lp));
  L->reduced = L->pending;
  L->pending = -1;
  return true;
}

/* Records `buf[0]` in n as the reduced accumulator, and (the element form) `blockIdx.x` as the row. */
static bool subs(Lift *L, TSNode n) {
  const KrSyms *s = &L->t->sym;
  if (L->r->elements && is(L, n, s->field_expression) && kr_node_text_is(L->t, n, "blockIdx.x")) {
    KrRowSub sb = {.node = n, .text = L->r->row};
    kr_vec_push(L->a, &L->r->subs, sb);
    return true;
  }
  if (is(L, n, s->subscript_expression) && is_shared(L, unparen(L, field(n, "argument")))) {
    TSNode ix = subscript(n);
    if (L->reduced < 0 || !kr_node_text_is(L->t, unparen(L, ix), "0"))
      return fail(L, n, "'%s' reads shared memory other than the reduced value", text(L, n));
    KrRowSub sb = {.node = n, .text = L->r->accs.data[L->reduced].name};
    kr_vec_push(L->a, &L->r->subs, sb);
    return true;
  }
  KrChildren it;
  for (TSNode c = kr_children_first(&it, n); !ts_node_is_null(c); c = kr_children_next(&it))
    if (!subs(L, c)) {
      kr_children_end(&it);
      return false;
    }
  kr_children_end(&it);
  return true;
}

/* ---- Statements --------------------------------------------------------------------------------------- */

static bool writes_memory(Lift *L, TSNode n) {
  const KrSyms *s = &L->t->sym;
  if (is(L, n, s->assignment_expression) || is(L, n, s->update_expression)) {
    TSNode t = unparen(L, field(n, is(L, n, s->update_expression) ? "argument" : "left"));
    if (is(L, t, s->subscript_expression) || is(L, t, s->pointer_expression)) return true;
  }
  for (uint32_t i = 0; i < ts_node_child_count(n); i++)
    if (writes_memory(L, ts_node_child(n, i))) return true;
  return false;
}

static bool leader_if(Lift *L, TSNode st) {
  TSNode c = unparen(L, field(field(st, "condition"), "value"));
  if (ts_node_is_null(c)) c = unparen(L, field(st, "condition"));
  return is(L, c, L->t->sym.binary_expression) && !strcmp(op_of(L, c), "==") && is_tid(L, field(c, "left")) &&
         kr_node_text_is(L->t, unparen(L, field(c, "right")), "0") && ts_node_is_null(field(st, "alternative"));
}

/* The declarators of a declaration (`float a = x, b;` has two). */
static int declarators(TSNode decl) {
  int n = 0;
  for (uint32_t i = 0; i < ts_node_child_count(decl); i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    n += f && !strcmp(f, "declarator");
  }
  return n;
}

static bool stmt_item(Lift *L, TSNode st) {
  if (L->r->elements && mentions(L, st, L->r->elem))
    return fail(L, st, "'%s' reads the element's index '%s' outside its store into shared memory", text(L, st), L->r->elem);
  L->row_builtin = L->r->elements;   /* the element form's row is the block */
  bool ok = plain(L, st, true);
  L->row_builtin = false;
  if (!ok || !subs(L, st)) return false;
  KrRowItem it = {.kind = KR_ROW_STMT, .node = st, .store = writes_memory(L, st), .acc = -1};
  /* `float r = acc;` or `float r = buf[0];` right after the reduction names its result. */
  const KrSyms *s = &L->t->sym;
  if (is(L, st, s->declaration) && declarators(st) == 1) {   /* `const float r = acc;` too */
    TSNode d = field(st, "declarator"), v = unparen(L, field(d, "value"));
    const char *name = is(L, field(d, "declarator"), s->identifier) ? text(L, field(d, "declarator")) : NULL;
    int a = -1;
    if (name && is(L, v, s->identifier)) a = kr_rows_acc(L->r, text(L, v));
    for (size_t i = 0; name && a < 0 && i < L->r->subs.len; i++)
      if (ts_node_eq(L->r->subs.data[i].node, v)) a = kr_rows_acc(L->r, L->r->subs.data[i].text);
    if (a >= 0 && !strcmp(L->r->accs.data[a].result, L->r->accs.data[a].name)) L->r->accs.data[a].result = name;
  }
  kr_vec_push(L->a, &L->r->items, it);
  return true;
}

static bool body(Lift *L, TSNode block);

/* The row's work begins with no row index: the kernel is read as one row that every block walks
 * (a block form whose loops must then start at the thread's index), under a name of its own. */
static void single_row(Lift *L) {
  L->r->map = KR_ROWS_BLOCK, L->r->row = fresh_name(L, "kr_row"), L->r->single = true;
}

static bool guard_of(Lift *L, TSNode c, bool negate) {
  const KrSyms *s = &L->t->sym;
  c = unparen(L, c);
  if (!is(L, c, s->binary_expression)) return false;
  const char *op = op_of(L, c);
  TSNode l = unparen(L, field(c, "left")), r = field(c, "right");
  if (!is(L, l, s->identifier) || !L->r->row || !kr_node_text_is(L->t, l, L->r->row) || uses_thread(L, r)) return false;
  if (negate ? strcmp(op, ">=") : strcmp(op, "<")) return false;
  if (L->r->guard) return false;
  L->r->guard = kr_arena_printf(L->a, "%s < %s", L->r->row, text(L, r));
  L->r->guard_hi = r;
  return true;
}

static bool statement(Lift *L, TSNode st, TSNode block, uint32_t i) {
  const KrSyms *s = &L->t->sym;
  if (is(L, st, s->comment)) return true;
  if (is(L, st, s->declaration) && strstr(text(L, st), "__shared__")) {
    if (L->r->shared) return fail(L, st, "a second shared array");
    if (L->r->items.len) return fail(L, st, "a shared array declared inside the row's work");
    L->r->shared = text(L, field(field(st, "declarator"), "declarator"));
    L->shared_type = text(L, field(st, "type"));
    return true;
  }
  if (!L->row_body && is(L, st, s->declaration)) {
    if (head_decl(L, st)) return true;
    if (L->why) return false;
  }
  if (is(L, st, s->if_statement) && L->r->row && !L->r->guard && !L->r->accs.len) {
    TSNode c = field(field(st, "condition"), "value");
    if (ts_node_is_null(c)) c = field(st, "condition");
    TSNode then = field(st, "consequence");
    bool bare = ts_node_is_null(field(st, "alternative"));
    if (bare && is(L, then, s->return_statement) && guard_of(L, c, true)) return true;
    if (bare && is(L, then, s->compound_statement) && guard_of(L, c, false)) {
      for (uint32_t j = i + 1; j < ts_node_named_child_count(block); j++)
        if (!is(L, ts_node_named_child(block, j), s->comment))
          return fail(L, ts_node_named_child(block, j), "a statement after the row's guarded body");
      L->row_body = true;
      return body(L, then);
    }
  }
  if (!L->r->row) single_row(L);
  L->row_body = true;
  if (L->r->map == KR_ROWS_BLOCK && is_sync(L, st)) return true;
  if (L->r->elements && L->elem_acc < 0 && L->r->shared && mentions(L, st, L->r->shared)) return element_store(L, st);
  if (L->r->shared && is(L, st, s->expression_statement) && shared_store(L, st)) return true;
  if (L->why) return false;
  if (is(L, st, s->for_statement)) {
    if (L->r->shared && mentions(L, st, L->r->shared)) return tree(L, st);
    return loop(L, st);
  }
  if (is(L, st, s->if_statement) && L->r->map == KR_ROWS_BLOCK && leader_if(L, st)) {
    TSNode then = field(st, "consequence");
    if (!is(L, then, s->compound_statement)) return stmt_item(L, then);
    for (uint32_t j = 0; j < ts_node_named_child_count(then); j++) {
      TSNode c = ts_node_named_child(then, j);
      if (!is(L, c, s->comment) && !stmt_item(L, c)) return false;
    }
    return true;
  }
  if (L->r->map == KR_ROWS_BLOCK && L->r->tid && mentions(L, st, L->r->tid))
    return fail(L, st, "'%s' depends on the thread's index outside a row loop", text(L, st));
  return stmt_item(L, st);
}

static bool body(Lift *L, TSNode block) {
  uint32_t n = ts_node_named_child_count(block);
  for (uint32_t i = 0; i < n; i++)
    if (!statement(L, ts_node_named_child(block, i), block, i)) return false;
  return true;
}

KrRows *kr_rows_lift(const KrTree *tree, const KrKernel *k, KrArena *arena, KrDiags *diags) {
  Lift L = {.t = tree, .k = k, .a = arena, .ac = kr_affine_ctx_new(tree, k, arena), .lx = kr_loops_new(tree, k, arena),
            .pending = -1, .reduced = -1, .elem_acc = -1};
  for (uint32_t i = 0; i < ts_node_named_child_count(k->body); i++) {
    TSNode st = ts_node_named_child(k->body, i);
    L.has_shared |= is(&L, st, tree->sym.declaration) && strstr(text(&L, st), "__shared__");
  }
  L.r = kr_arena_alloc(arena, sizeof *L.r);
  L.r->kernel = k;
  bool ok = true;
  if (kr_kernel_generic(k)) ok = fail(&L, k->node, "a template kernel (specialize writes out one instantiation)");
  ok = ok && body(&L, k->body);
  if (ok && !L.r->row)
    ok = fail(&L, k->body, "no row index (blockIdx.x or blockIdx.y, or blockIdx.x * blockDim.x + threadIdx.x)");
  if (ok && L.r->elements && L.elem_acc < 0)
    ok = fail(&L, L.elem_decl, "'%s' is an element's index (one a thread, the kernel has shared memory), but no "
                               "element is stored into shared memory ('buf[tid] = %s < n ? x[%s] : 0;')",
              L.r->elem, L.r->elem, L.r->elem);
  size_t loops = 0;
  for (size_t i = 0; ok && i < L.r->items.len; i++) loops += L.r->items.data[i].kind == KR_ROW_LOOP;
  if (ok && !loops) ok = fail(&L, k->body, "no row loop");
  if (ok && L.pending >= 0 && L.pending == L.elem_acc)
    ok = fail(&L, L.r->accs.data[L.pending].decl, "the element is stored into shared memory and never reduced (no tree "
                                                  "follows)");
  if (ok && L.pending >= 0) ok = fail(&L, L.r->accs.data[L.pending].decl, "'%s' is stored into shared memory and never reduced",
                                      L.r->accs.data[L.pending].name);
  if (ok && L.r->map == KR_ROWS_BLOCK) {
    /* Every reduced accumulator went through the tree before its value was read. */
    for (size_t i = 0; ok && i < L.r->accs.len; i++) {
      const KrRowAcc *a = &L.r->accs.data[i];
      bool treed = false;
      for (size_t j = 0; j < L.r->subs.len; j++) treed |= !strcmp(L.r->subs.data[j].text, a->name);
      if (!treed && a->op != KR_RED_NONE)
        ok = fail(&L, a->decl, "'%s' is a per-thread partial the kernel never reduces over the block", a->name);
      if (a->arg >= 0 || a->of >= 0) ok = fail(&L, a->update, "an arg-max in a block-per-row kernel");
    }
  }
  /* Each accumulator's declaration is an item of the row's work. */
  for (size_t i = 0; ok && i < L.r->items.len; i++) {
    KrRowItem *it = &L.r->items.data[i];
    if (it->kind != KR_ROW_STMT) continue;
    for (size_t a = 0; a < L.r->accs.len; a++)
      if (ts_node_eq(L.r->accs.data[a].decl, it->node)) it->acc = (int)a;
  }
  for (size_t a = 0; ok && a < L.r->accs.len; a++) {
    bool found = false;
    for (size_t i = 0; i < L.r->items.len; i++) found |= L.r->items.data[i].acc == (int)a;
    if (!found) ok = fail(&L, L.r->accs.data[a].decl, "the accumulator '%s' is not declared in the row's work",
                          L.r->accs.data[a].name);
  }
  if (ok) return L.r;
  kr_diag_at(diags, KR_DIAG_ERROR, tree->src, L.at, "kernel '%s' is not a row reduction: %s", k->name, L.why);
  return NULL;
}

/* ---- Printing ----------------------------------------------------------------------------------------- */

static const char *op_name(KrRedOp op) {
  return op == KR_RED_SUM ? "+" : op == KR_RED_MAX ? "max" : op == KR_RED_MIN ? "min" : "index";
}

void kr_rows_text(const KrRows *r, const KrTree *t, KrBuf *o) {
  KrArena *a = kr_arena_new();
  kr_buf_printf(o, "kernel %s: row nest (%s)\n", r->kernel->name,
                r->single                ? "one row, walked by every block alike, reduced through shared memory"
                : r->elements             ? "one element a thread, a block's elements per row, reduced through shared memory"
                : r->map == KR_ROWS_BLOCK && r->row_y ? "one block per row (blockIdx.y), reduced through shared memory"
                : r->map == KR_ROWS_BLOCK ? "one block per row, reduced through shared memory"
                                          : "one thread per row");
  if (r->single) kr_buf_printf(o, "  parallel  %s in [0, 1)    no row index: every block computes the one row\n", r->row);
  else if (r->elements)
    kr_buf_printf(o, "  parallel  %s in [0, %s)    the original's blocks (%s: its gridDim.x; %s: its blockDim.x)\n",
                  r->row, r->row_count, r->row_count, r->block_size);
  else kr_buf_printf(o, "  parallel  %s%s%s\n", r->row, r->guard ? "    guard " : "", r->guard ? r->guard : "");
  if (r->block_const) kr_buf_printf(o, "  block     written for %s threads (a row loop steps by, or the tree halves from, a constant)\n", r->block_const);
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowItem *it = &r->items.data[i];
    if (it->kind == KR_ROW_LOOP) {
      kr_buf_printf(o, "  row loop  %s in [%s, %s)  line %u\n", it->var, it->lo, it->hi,
                    kr_source_line_of(t->src, ts_node_start_byte(it->node)) + 1);
      for (size_t k = 0; k < it->accs.len; k++) {
        const KrRowAcc *x = &r->accs.data[it->accs.data[k]];
        kr_buf_printf(o, "    accumulator %s %s (op %s%s, init %s)%s%s\n", x->type, x->name, op_name(x->op),
                      x->fma ? " of fused multiply-adds" : "", x->init,
                      strcmp(x->result, x->name) ? ", read as " : "", strcmp(x->result, x->name) ? x->result : "");
      }
      for (size_t k = 0; k < it->writes.len; k++) kr_buf_printf(o, "    stores %s\n", it->writes.data[k]);
    } else {
      kr_buf_printf(o, "  per row   %s%s\n", it->text ? it->text : kr_node_text_flat(t, it->node, a), it->store ? "  (store)" : "");
    }
  }
  kr_arena_free(a);
}
