/* frontend/affine.c: affine index forms (affine.h), over the name resolution of scope.h. A form is
 * built by one recursive walk over the expression; locals are substituted by their single
 * definition, loop induction variables stay variables, and anything else is reported as not
 * affine with the construct that made it so. */
#include "frontend/affine.h"

#include <stdlib.h>
#include <string.h>

/* ---- The context ----------------------------------------------------------------------------- */

typedef struct LocalCache {
  uint32_t name_at;      /* start byte of the declaring identifier */
  const KrAffine *form;
} LocalCache;

struct KrAffineCtx {
  const KrTree *t;
  const KrSyms *s;
  const KrKernel *k;
  KrArena *a;
  KrVec(TSNode) muts;           /* identifiers assigned, incremented or address-taken */
  KrVec(LocalCache) locals;
  const KrAffine **loop_init, **loop_step;
  bool *loop_done;
  int depth;                    /* guards substitution chains */
};

static TSNode strip_parens(const KrAffineCtx *cx, TSNode n) {
  return kr_node_strip_parens(cx->t, n);
}

static void note_mut(KrAffineCtx *cx, TSNode target) {
  target = strip_parens(cx, target);
  if (!ts_node_is_null(target) && ts_node_symbol(target) == cx->s->identifier)
    kr_vec_push(cx->a, &cx->muts, target);
}

/* Every identifier the kernel may change: `v = …`, `v += …`, `v++`, `&v`, `T &r = v`. */
static void scan_muts(KrAffineCtx *cx, TSNode n) {
  TSSymbol sym = ts_node_symbol(n);
  if (sym == cx->s->assignment_expression) {
    note_mut(cx, ts_node_child_by_field_name(n, "left", 4));
  } else if (sym == cx->s->update_expression) {
    note_mut(cx, ts_node_child_by_field_name(n, "argument", 8));
  } else if (sym == cx->s->pointer_expression) {
    TSNode op = ts_node_child_by_field_name(n, "operator", 8);
    if (!ts_node_is_null(op) && kr_node_text_is(cx->t, op, "&"))
      note_mut(cx, ts_node_child_by_field_name(n, "argument", 8));
  } else if (sym == cx->s->init_declarator) {
    TSNode d = ts_node_child_by_field_name(n, "declarator", 10);
    if (!ts_node_is_null(d) && ts_node_symbol(d) == cx->s->reference_declarator)
      note_mut(cx, ts_node_child_by_field_name(n, "value", 5));
  }
  uint32_t c = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < c; i++) scan_muts(cx, ts_node_named_child(n, i));
}

KrAffineCtx *kr_affine_ctx_new(const KrTree *tree, const KrKernel *k, KrArena *arena) {
  KrAffineCtx *cx = kr_arena_alloc(arena, sizeof *cx);
  cx->t = tree;
  cx->s = &tree->sym;
  cx->k = k;
  cx->a = arena;
  size_t nl = k->loops.len ? k->loops.len : 1;
  cx->loop_init = kr_arena_alloc(arena, nl * sizeof *cx->loop_init);
  cx->loop_step = kr_arena_alloc(arena, nl * sizeof *cx->loop_step);
  cx->loop_done = kr_arena_alloc(arena, nl * sizeof *cx->loop_done);
  scan_muts(cx, k->body);
  return cx;
}

/* ---- Building forms -------------------------------------------------------------------------- */

static KrAffine *blank_form(KrAffineCtx *cx) {
  KrAffine *f = kr_arena_alloc(cx->a, sizeof *f);
  f->ok = true;
  return f;
}

static char *short_text(KrAffineCtx *cx, TSNode n) { return kr_node_text_flat(cx->t, n, cx->a); }

static KrAffine *bad(KrAffineCtx *cx, TSNode at, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
static KrAffine *bad(KrAffineCtx *cx, TSNode at, const char *fmt, ...) {
  KrAffine *f = blank_form(cx);
  f->ok = false;
  va_list ap;
  va_start(ap, fmt);
  f->why = kr_arena_vprintf(cx->a, fmt, ap);
  va_end(ap);
  f->at = ts_node_start_byte(at);
  return f;
}

static KrAffine *constant(KrAffineCtx *cx, long long c) {
  KrAffine *f = blank_form(cx);
  if (c) {
    KrAffTerm t = {.coef = c, .loop = -1};
    kr_vec_push(cx->a, &f->terms, t);
  }
  return f;
}

static KrAffine *single(KrAffineCtx *cx, const char *var, KrAffVarKind kind, int loop,
                        const char *sym) {
  KrAffine *f = blank_form(cx);
  KrAffTerm t = {.coef = 1, .var = var, .kind = kind, .loop = loop};
  if (sym) t.syms[t.nsyms++] = sym;
  kr_vec_push(cx->a, &f->terms, t);
  return f;
}

static int strcmp_null(const char *a, const char *b) {
  if (!a || !b) return a ? -1 : b ? 1 : 0;   /* terms with a variable come first */
  return strcmp(a, b);
}

/* Orders terms by variable, loop, then symbols; equal keys are like terms. */
static int term_cmp(const void *x, const void *y) {
  const KrAffTerm *a = x, *b = y;
  int c = strcmp_null(a->var, b->var);
  if (c) return c;
  if (a->loop != b->loop) return a->loop < b->loop ? -1 : 1;
  if (a->nsyms != b->nsyms) return a->nsyms < b->nsyms ? -1 : 1;
  for (int i = 0; i < a->nsyms; i++)
    if ((c = strcmp(a->syms[i], b->syms[i])) != 0) return c;
  return 0;
}

static int str_cmp(const void *x, const void *y) {
  return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sorts and merges like terms; fails (returns false) when a coefficient overflows. */
static bool normalise(KrAffine *f) {
  for (size_t i = 0; i < f->terms.len; i++)
    qsort(f->terms.data[i].syms, (size_t)f->terms.data[i].nsyms, sizeof(char *), str_cmp);
  if (f->terms.len > 1) qsort(f->terms.data, f->terms.len, sizeof *f->terms.data, term_cmp);
  size_t w = 0;
  for (size_t i = 0; i < f->terms.len; i++) {
    if (w > 0 && term_cmp(&f->terms.data[w - 1], &f->terms.data[i]) == 0) {
      if (__builtin_add_overflow(f->terms.data[w - 1].coef, f->terms.data[i].coef,
                                 &f->terms.data[w - 1].coef))
        return false;
    } else {
      f->terms.data[w++] = f->terms.data[i];
    }
  }
  size_t z = 0;
  for (size_t i = 0; i < w; i++)
    if (f->terms.data[i].coef != 0) f->terms.data[z++] = f->terms.data[i];
  f->terms.len = z;
  return true;
}

static KrAffine *add(KrAffineCtx *cx, const KrAffine *a, const KrAffine *b, int sign, TSNode at) {
  if (!a->ok) return (KrAffine *)a;
  if (!b->ok) return (KrAffine *)b;
  KrAffine *f = blank_form(cx);
  for (size_t i = 0; i < a->terms.len; i++) kr_vec_push(cx->a, &f->terms, a->terms.data[i]);
  for (size_t i = 0; i < b->terms.len; i++) {
    KrAffTerm t = b->terms.data[i];
    if (sign < 0 && __builtin_mul_overflow(t.coef, -1LL, &t.coef))
      return bad(cx, at, "'%s' overflows a 64-bit coefficient", short_text(cx, at));
    kr_vec_push(cx->a, &f->terms, t);
  }
  if (!normalise(f)) return bad(cx, at, "'%s' overflows a 64-bit coefficient", short_text(cx, at));
  return f;
}

static KrAffine *mul(KrAffineCtx *cx, const KrAffine *a, const KrAffine *b, TSNode at) {
  if (!a->ok) return (KrAffine *)a;
  if (!b->ok) return (KrAffine *)b;
  KrAffine *f = blank_form(cx);
  for (size_t i = 0; i < a->terms.len; i++)
    for (size_t j = 0; j < b->terms.len; j++) {
      const KrAffTerm *x = &a->terms.data[i], *y = &b->terms.data[j];
      if (x->var && y->var)
        return bad(cx, at, "'%s' multiplies two index variables (%s, %s)", short_text(cx, at),
                   x->var, y->var);
      if (x->nsyms + y->nsyms > KR_AFF_MAX_SYMS)
        return bad(cx, at, "'%s' multiplies more than %d symbols", short_text(cx, at),
                   KR_AFF_MAX_SYMS);
      KrAffTerm t = x->var ? *x : *y;
      const KrAffTerm *other = x->var ? y : x;
      if (__builtin_mul_overflow(x->coef, y->coef, &t.coef))
        return bad(cx, at, "'%s' overflows a 64-bit coefficient", short_text(cx, at));
      for (int s = 0; s < other->nsyms; s++) t.syms[t.nsyms++] = other->syms[s];
      kr_vec_push(cx->a, &f->terms, t);
    }
  if (!normalise(f)) return bad(cx, at, "'%s' overflows a 64-bit coefficient", short_text(cx, at));
  return f;
}

/* The plain integer value of a form, if it is one. */
static bool const_value(const KrAffine *f, long long *out) {
  if (!f->ok) return false;
  if (f->terms.len == 0) {
    *out = 0;
    return true;
  }
  if (f->terms.len == 1 && !f->terms.data[0].var && f->terms.data[0].nsyms == 0) {
    *out = f->terms.data[0].coef;
    return true;
  }
  return false;
}

/* ---- Types ----------------------------------------------------------------------------------- */

/* The type of a declaration with pointer declarators shown, for the integer check. */
static const char *decl_type(KrAffineCtx *cx, const KrBinding *b) {
  TSNode ty = ts_node_child_by_field_name(b->decl, "type", 4);
  const char *base = ts_node_is_null(ty) ? "" : kr_node_text(cx->t, ty, cx->a);
  /* A pointer or array declarator between the declaration and the name makes it a non-integer. */
  for (TSNode n = ts_node_parent(b->name); !ts_node_is_null(n) && !ts_node_eq(n, b->decl);
       n = ts_node_parent(n)) {
    TSSymbol s = ts_node_symbol(n);
    if (s == cx->s->pointer_declarator || s == cx->s->array_declarator)
      return kr_arena_printf(cx->a, "%s *", base);
  }
  return base;
}

/* ---- Leaves ---------------------------------------------------------------------------------- */

static KrAffine *number(KrAffineCtx *cx, TSNode n) {
  const char *txt = kr_node_text(cx->t, n, cx->a);
  char buf[64];
  size_t w = 0;
  for (const char *p = txt; *p && w + 1 < sizeof buf; p++)
    if (*p != '\'') buf[w++] = *p;
  buf[w] = 0;
  bool hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
  bool bin = buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B');
  if (strchr(buf, '.') || (!hex && (strchr(buf, 'e') || strchr(buf, 'E') || strchr(buf, 'f') ||
                                    strchr(buf, 'F'))) ||
      (hex && (strchr(buf, 'p') || strchr(buf, 'P'))))
    return bad(cx, n, "'%s' is a floating-point literal", txt);
  char *end;
  unsigned long long v = strtoull(bin ? buf + 2 : buf, &end, bin ? 2 : 0);
  while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L' || *end == 'z' || *end == 'Z')
    end++;
  if (*end || v > (unsigned long long)(1LL << 62))
    return bad(cx, n, "'%s' is not an integer literal krewrite can use", txt);
  return constant(cx, (long long)v);
}

static bool builtin_index(const char *obj) {
  return strcmp(obj, "threadIdx") == 0 || strcmp(obj, "blockIdx") == 0;
}
static bool builtin_dim(const char *obj) {
  return strcmp(obj, "blockDim") == 0 || strcmp(obj, "gridDim") == 0;
}

static KrAffine *form(KrAffineCtx *cx, TSNode n);

static KrAffine *field(KrAffineCtx *cx, TSNode n) {
  TSNode arg = strip_parens(cx, ts_node_child_by_field_name(n, "argument", 8));
  TSNode fld = ts_node_child_by_field_name(n, "field", 5);
  TSNode op = ts_node_child_by_field_name(n, "operator", 8);
  const char *txt = short_text(cx, n);
  if (ts_node_is_null(arg) || ts_node_is_null(fld) || ts_node_symbol(arg) != cx->s->identifier ||
      ts_node_is_null(op) || !kr_node_text_is(cx->t, op, "."))
    return bad(cx, n, "'%s' is a member access krewrite cannot follow", txt);
  const char *obj = kr_node_text(cx->t, arg, cx->a);
  const char *f = kr_node_text(cx->t, fld, cx->a);
  KrBinding b = kr_resolve(cx->t, cx->k, arg);
  bool xyz = strcmp(f, "x") == 0 || strcmp(f, "y") == 0 || strcmp(f, "z") == 0;
  if (b.kind == KR_BIND_NONE && xyz && builtin_index(obj))
    return single(cx, kr_arena_printf(cx->a, "%s.%s", obj, f),
                  obj[0] == 't' ? KR_AVAR_THREAD : KR_AVAR_BLOCK, -1, NULL);
  if (b.kind == KR_BIND_NONE && xyz && builtin_dim(obj))
    return single(cx, NULL, KR_AVAR_THREAD, -1, kr_arena_printf(cx->a, "%s.%s", obj, f));
  if (b.kind == KR_BIND_PARAM && cx->k->params.data[b.param].pointer_depth == 0) {
    for (size_t i = 0; i < cx->muts.len; i++)
      if (kr_binding_same(kr_resolve(cx->t, cx->k, cx->muts.data[i]), b))
        return bad(cx, n, "parameter '%s' is assigned in the kernel", obj);
    return single(cx, NULL, KR_AVAR_THREAD, -1, txt);
  }
  return bad(cx, n, "'%s' is a member access krewrite cannot follow", txt);
}

/* The first mutation of binding b, or a null node. */
static TSNode first_mut(KrAffineCtx *cx, KrBinding b, TSNode skip_inside) {
  for (size_t i = 0; i < cx->muts.len; i++) {
    TSNode m = cx->muts.data[i];
    if (!ts_node_is_null(skip_inside) && ts_node_start_byte(m) >= ts_node_start_byte(skip_inside) &&
        ts_node_end_byte(m) <= ts_node_end_byte(skip_inside))
      continue;
    if (kr_binding_same(kr_resolve(cx->t, cx->k, m), b)) return m;
  }
  TSNode none = {0};
  return none;
}

static char *pos(KrAffineCtx *cx, TSNode n) {
  TSPoint p = ts_node_start_point(n);
  return kr_arena_printf(cx->a, "%u:%u", p.row + 1, p.column + 1);
}

/* Is every mutation of b inside loop l's initializer or update clause? Returns the first one
 * that is not, or a null node. */
static TSNode mut_outside_header(KrAffineCtx *cx, KrBinding b, const KrLoop *l) {
  TSNode init = ts_node_child_by_field_name(l->node, "initializer", 11);
  TSNode upd = ts_node_child_by_field_name(l->node, "update", 6);
  for (size_t i = 0; i < cx->muts.len; i++) {
    TSNode m = cx->muts.data[i];
    if (kr_node_within(m, init) || kr_node_within(m, upd)) continue;
    if (kr_binding_same(kr_resolve(cx->t, cx->k, m), b)) return m;
  }
  TSNode none = {0};
  return none;
}

/* Does the loop's header introduce binding b (declares it, or assigns it in the initializer)? */
static bool loop_owns(KrAffineCtx *cx, const KrLoop *l, KrBinding b) {
  TSNode init = ts_node_child_by_field_name(l->node, "initializer", 11);
  if (ts_node_is_null(init)) return false;
  if (ts_node_eq(init, b.decl)) return true;
  if (ts_node_symbol(init) != cx->s->assignment_expression) return false;
  TSNode left = strip_parens(cx, ts_node_child_by_field_name(init, "left", 4));
  return !ts_node_is_null(left) && ts_node_symbol(left) == cx->s->identifier &&
         kr_binding_same(kr_resolve(cx->t, cx->k, left), b);
}

/* The innermost for loop whose induction variable is binding b and whose body, condition or
 * update holds `use`; -1 when none. */
static int loop_of(KrAffineCtx *cx, KrBinding b, TSNode use, const char *name) {
  int best = -1;
  for (size_t i = 0; i < cx->k->loops.len; i++) {
    const KrLoop *l = &cx->k->loops.data[i];
    if (l->kind != KR_LOOP_FOR || !l->var || strcmp(l->var, name) != 0) continue;
    if (!kr_node_within(use, l->node)) continue;
    if (kr_node_within(use, ts_node_child_by_field_name(l->node, "initializer", 11))) continue;
    if (!loop_owns(cx, l, b)) continue;
    if (best < 0 || l->depth > cx->k->loops.data[best].depth) best = (int)i;
  }
  return best;
}

static const KrAffine *local_form(KrAffineCtx *cx, TSNode id, KrBinding b, const char *name) {
  int l = loop_of(cx, b, id, name);
  if (l >= 0) {
    TSNode m = mut_outside_header(cx, b, &cx->k->loops.data[l]);
    if (!ts_node_is_null(m))
      return bad(cx, id, "loop variable '%s' is also assigned in the loop body at %s", name,
                 pos(cx, m));
    return single(cx, cx->k->loops.data[l].var, KR_AVAR_LOOP, l, NULL);
  }
  uint32_t key = ts_node_start_byte(b.name);
  for (size_t i = 0; i < cx->locals.len; i++)
    if (cx->locals.data[i].name_at == key) return cx->locals.data[i].form;
  const KrAffine *f;
  TSNode none = {0};
  TSNode m = first_mut(cx, b, none);
  const char *ty = decl_type(cx, &b);
  if (!ts_node_is_null(m))
    f = bad(cx, id, "'%s' is assigned more than once (again at %s)", name, pos(cx, m));
  else if (ts_node_is_null(b.value))
    f = bad(cx, id, "'%s' (declared at %s) has no initializer", name, pos(cx, b.name));
  else if (!kr_type_text_maybe_integer(ty))
    f = bad(cx, id, "'%s' has type '%s', not an integer type", name, ty);
  else if (cx->depth > 64)
    f = bad(cx, id, "the definition of '%s' nests too deeply", name);
  else {
    cx->depth++;
    const KrAffine *v = form(cx, b.value);
    cx->depth--;
    f = v->ok ? v
              : bad(cx, id, "'%s' is defined at %s as '%s', which is not affine: %s", name,
                    pos(cx, b.name), short_text(cx, b.value), v->why);
  }
  LocalCache c = {.name_at = key, .form = f};
  kr_vec_push(cx->a, &cx->locals, c);
  return f;
}

static KrAffine *ident(KrAffineCtx *cx, TSNode n) {
  const char *name = kr_node_text(cx->t, n, cx->a);
  KrBinding b = kr_resolve(cx->t, cx->k, n);
  switch (b.kind) {
  case KR_BIND_LOCAL: return (KrAffine *)local_form(cx, n, b, name);
  case KR_BIND_LAMBDA: return bad(cx, n, "'%s' is a lambda parameter", name);
  case KR_BIND_PARAM: {
    const KrParam *p = &cx->k->params.data[b.param];
    if (p->pointer_depth > 0 || p->is_reference)
      return bad(cx, n, "'%s' is a pointer or reference parameter", name);
    if (!kr_type_text_maybe_integer(p->base))
      return bad(cx, n, "parameter '%s' has type '%s', not an integer type", name, p->base);
    TSNode none = {0};
    TSNode m = first_mut(cx, b, none);
    if (!ts_node_is_null(m))
      return bad(cx, n, "parameter '%s' is assigned at %s", name, pos(cx, m));
    return single(cx, NULL, KR_AVAR_THREAD, -1, name);
  }
  default: break;
  }
  if (strcmp(name, "true") == 0) return constant(cx, 1);
  if (strcmp(name, "false") == 0) return constant(cx, 0);
  if (builtin_index(name) || builtin_dim(name))
    return bad(cx, n, "'%s' is used without .x, .y or .z", name);
  for (size_t i = 0; i < cx->muts.len; i++)
    if (kr_node_text_is(cx->t, cx->muts.data[i], name) &&
        kr_resolve(cx->t, cx->k, cx->muts.data[i]).kind == KR_BIND_NONE)
      return bad(cx, n, "'%s' is assigned in the kernel at %s", name, pos(cx, cx->muts.data[i]));
  return single(cx, NULL, KR_AVAR_THREAD, -1, name); /* a global, macro or template constant */
}

/* ---- Operators ------------------------------------------------------------------------------- */

static KrAffine *binary(KrAffineCtx *cx, TSNode n) {
  TSNode op = ts_node_child_by_field_name(n, "operator", 8);
  const char *o = ts_node_is_null(op) ? "?" : ts_node_type(op);
  KrAffine *l = form(cx, ts_node_child_by_field_name(n, "left", 4));
  if (!l->ok) return l;
  if (strcmp(o, "+") == 0 || strcmp(o, "-") == 0 || strcmp(o, "*") == 0 || strcmp(o, "<<") == 0) {
    KrAffine *r = form(cx, ts_node_child_by_field_name(n, "right", 5));
    if (!r->ok) return r;
    if (o[0] == '+') return add(cx, l, r, 1, n);
    if (o[0] == '-') return add(cx, l, r, -1, n);
    if (o[0] == '*') return mul(cx, l, r, n);
    long long sh;
    if (!const_value(r, &sh) || sh < 0 || sh > 62)
      return bad(cx, n, "'%s' shifts by a non-constant amount", short_text(cx, n));
    return mul(cx, l, constant(cx, 1LL << sh), n);
  }
  const char *what = strcmp(o, "/") == 0   ? "integer division"
                     : strcmp(o, "%") == 0 ? "a remainder"
                     : strcmp(o, ">>") == 0 ? "a right shift"
                                            : NULL;
  if (what)
    return bad(cx, n, "'%s' uses %s ('%s'), which is not affine", short_text(cx, n), what, o);
  return bad(cx, n, "'%s' uses '%s', which is not affine", short_text(cx, n), o);
}

/* A cast that keeps an integer value: `(int)e`, `static_cast<size_t>(e)`, `int(e)`. */
static KrAffine *cast_to(KrAffineCtx *cx, TSNode n, TSNode type, TSNode value) {
  const char *ty = kr_node_text(cx->t, type, cx->a);
  if (strchr(ty, '*') || !kr_type_text_maybe_integer(ty))
    return bad(cx, n, "'%s' converts to '%s', not an integer type", short_text(cx, n), ty);
  return form(cx, value);
}

static KrAffine *call(KrAffineCtx *cx, TSNode n) {
  TSNode fn = ts_node_child_by_field_name(n, "function", 8);
  TSNode args = ts_node_child_by_field_name(n, "arguments", 9);
  bool one = !ts_node_is_null(args) && ts_node_named_child_count(args) == 1;
  if (!ts_node_is_null(fn) && one && ts_node_symbol(fn) == cx->s->template_function) {
    TSNode name = ts_node_child_by_field_name(fn, "name", 4);
    TSNode targs = ts_node_child_by_field_name(fn, "arguments", 9);
    if (kr_node_text_is(cx->t, name, "static_cast") && ts_node_named_child_count(targs) == 1)
      return cast_to(cx, n, ts_node_named_child(targs, 0), ts_node_named_child(args, 0));
  }
  if (!ts_node_is_null(fn) && one &&
      (ts_node_symbol(fn) == cx->s->primitive_type ||
       ts_node_symbol(fn) == cx->s->sized_type_specifier))
    return cast_to(cx, n, fn, ts_node_named_child(args, 0));
  return bad(cx, n, "'%s' is a function call", short_text(cx, n));
}

static KrAffine *form(KrAffineCtx *cx, TSNode n) {
  n = strip_parens(cx, n);
  if (ts_node_is_null(n)) {
    KrAffine *f = blank_form(cx);
    f->ok = false;
    f->why = "the expression is missing";
    return f;
  }
  const KrSyms *s = cx->s;
  TSSymbol sym = ts_node_symbol(n);
  if (sym == s->number_literal) return number(cx, n);
  if (sym == s->identifier) return ident(cx, n);
  if (sym == s->field_expression) return field(cx, n);
  if (sym == s->binary_expression) return binary(cx, n);
  if (sym == s->qualified_identifier || sym == s->sizeof_expression)
    return single(cx, NULL, KR_AVAR_THREAD, -1, short_text(cx, n));
  if (sym == s->unary_expression) {
    TSNode op = ts_node_child_by_field_name(n, "operator", 8);
    KrAffine *v = form(cx, ts_node_child_by_field_name(n, "argument", 8));
    if (!v->ok) return v;
    if (kr_node_text_is(cx->t, op, "-")) return mul(cx, v, constant(cx, -1), n);
    if (kr_node_text_is(cx->t, op, "+")) return v;
    return bad(cx, n, "'%s' uses '%s', which is not affine", short_text(cx, n),
               kr_node_text(cx->t, op, cx->a));
  }
  if (sym == s->cast_expression)
    return cast_to(cx, n, ts_node_child_by_field_name(n, "type", 4),
                   ts_node_child_by_field_name(n, "value", 5));
  if (sym == s->call_expression) return call(cx, n);
  if (sym == s->subscript_expression || sym == s->pointer_expression)
    return bad(cx, n, "'%s' is a memory access", short_text(cx, n));
  if (sym == s->assignment_expression || sym == s->update_expression || sym == s->comma_expression)
    return bad(cx, n, "'%s' has side effects", short_text(cx, n));
  if (sym == s->conditional_expression)
    return bad(cx, n, "'%s' is a conditional expression", short_text(cx, n));
  return bad(cx, n, "'%s' (%s) is not an affine integer expression", short_text(cx, n),
             ts_node_type(n));
}

const KrAffine *kr_affine_of(KrAffineCtx *cx, TSNode expr) { return form(cx, expr); }

/* ---- Loops ----------------------------------------------------------------------------------- */

static void loop_facts(KrAffineCtx *cx, int li) {
  if (cx->loop_done[li]) return;
  cx->loop_done[li] = true;
  const KrLoop *l = &cx->k->loops.data[li];
  if (l->kind != KR_LOOP_FOR || !l->var) return;
  TSNode init = ts_node_child_by_field_name(l->node, "initializer", 11);
  TSNode value = {0};
  if (ts_node_symbol(init) == cx->s->declaration) {
    KrBinding b;
    if (kr_declaration_declares(cx->t, init, l->var, strlen(l->var), &b)) value = b.value;
  } else if (ts_node_symbol(init) == cx->s->assignment_expression) {
    TSNode op = ts_node_child_by_field_name(init, "operator", 8);
    if (kr_node_text_is(cx->t, op, "=")) value = ts_node_child_by_field_name(init, "right", 5);
  }
  if (ts_node_is_null(value)) return;
  cx->loop_init[li] = form(cx, value);
  TSNode upd = strip_parens(cx, ts_node_child_by_field_name(l->node, "update", 6));
  if (ts_node_is_null(upd)) return;
  TSSymbol us = ts_node_symbol(upd);
  KrAffine *self = single(cx, l->var, KR_AVAR_LOOP, li, NULL);
  const KrAffine *step = NULL;
  if (us == cx->s->update_expression) {
    TSNode op = ts_node_child_by_field_name(upd, "operator", 8);
    step = constant(cx, kr_node_text_is(cx->t, op, "++") ? 1 : -1);
  } else if (us == cx->s->assignment_expression) {
    TSNode op = ts_node_child_by_field_name(upd, "operator", 8);
    KrAffine *r = form(cx, ts_node_child_by_field_name(upd, "right", 5));
    if (kr_node_text_is(cx->t, op, "+=")) step = r;
    else if (kr_node_text_is(cx->t, op, "-=")) step = mul(cx, r, constant(cx, -1), upd);
    else if (kr_node_text_is(cx->t, op, "=")) step = add(cx, r, self, -1, upd);
  }
  if (!step) return;
  if (step->ok)
    for (size_t i = 0; i < step->terms.len; i++)
      if (step->terms.data[i].loop == li) return; /* k = 2 * k: not a constant step */
  cx->loop_step[li] = step;
}

const KrAffine *kr_affine_loop_init(KrAffineCtx *cx, int loop) {
  if (loop < 0 || (size_t)loop >= cx->k->loops.len) return NULL;
  loop_facts(cx, loop);
  return cx->loop_step[loop] ? cx->loop_init[loop] : NULL;
}

const KrAffine *kr_affine_loop_step(KrAffineCtx *cx, int loop) {
  if (loop < 0 || (size_t)loop >= cx->k->loops.len) return NULL;
  loop_facts(cx, loop);
  return cx->loop_init[loop] ? cx->loop_step[loop] : NULL;
}

/* ---- Questions ------------------------------------------------------------------------------- */

bool kr_affine_coef(const KrAffine *a, const char *var, long long *out) {
  if (!a->ok) return false;
  long long c = 0;
  for (size_t i = 0; i < a->terms.len; i++) {
    const KrAffTerm *t = &a->terms.data[i];
    if (!t->var || strcmp(t->var, var) != 0) continue;
    if (t->nsyms) return false;
    c += t->coef;
  }
  *out = c;
  return true;
}

static void term_text_as(KrBuf *b, const KrAffTerm *t, bool first, bool with_var,
                         const char *var_text) {
  long long c = t->coef;
  if (!first) kr_buf_puts(b, c < 0 ? " - " : " + ");
  else if (c < 0) kr_buf_putc(b, '-');
  unsigned long long m = c < 0 ? 0ULL - (unsigned long long)c : (unsigned long long)c;
  bool any = false;
  if (m != 1 || ((!with_var || !t->var) && t->nsyms == 0)) {
    kr_buf_printf(b, "%llu", m);
    any = true;
  }
  if (with_var && t->var) {
    kr_buf_printf(b, "%s%s", any ? " * " : "", var_text ? var_text : t->var);
    any = true;
  }
  for (int i = 0; i < t->nsyms; i++) {
    kr_buf_printf(b, "%s%s", any ? " * " : "", t->syms[i]);
    any = true;
  }
}

static void term_text(KrBuf *b, const KrAffTerm *t, bool first, bool with_var) {
  term_text_as(b, t, first, with_var, NULL);
}

static const char *buf_done(KrBuf *b, KrArena *arena) {
  char *s = kr_arena_strndup(arena, b->data ? b->data : "", b->len);
  kr_buf_free(b);
  return s;
}

const char *kr_affine_coef_text(const KrAffine *a, const char *var, KrArena *arena) {
  KrBuf b = {0};
  bool first = true;
  for (size_t i = 0; a->ok && i < a->terms.len; i++) {
    const KrAffTerm *t = &a->terms.data[i];
    if (!t->var || strcmp(t->var, var) != 0) continue;
    term_text(&b, t, first, false);
    first = false;
  }
  if (first) kr_buf_putc(&b, '0');
  return buf_done(&b, arena);
}

const char *kr_affine_text(const KrAffine *a, KrArena *arena) {
  if (!a->ok) return kr_arena_printf(arena, "<not affine: %s>", a->why);
  KrBuf b = {0};
  for (size_t i = 0; i < a->terms.len; i++) term_text(&b, &a->terms.data[i], i == 0, true);
  if (a->terms.len == 0) kr_buf_putc(&b, '0');
  return buf_done(&b, arena);
}

const char *kr_affine_text_with(const KrAffine *a, const char *var, const char *text,
                                KrArena *arena) {
  if (!a->ok) return kr_affine_text(a, arena);
  KrBuf b = {0};
  for (size_t i = 0; i < a->terms.len; i++) {
    const KrAffTerm *t = &a->terms.data[i];
    bool hit = t->var && strcmp(t->var, var) == 0;
    term_text_as(&b, t, i == 0, true, hit ? text : NULL);
  }
  if (a->terms.len == 0) kr_buf_putc(&b, '0');
  return buf_done(&b, arena);
}

bool kr_affine_is_uniform(const KrAffine *a) {
  if (!a->ok) return false;
  for (size_t i = 0; i < a->terms.len; i++)
    if (a->terms.data[i].var) return false;
  return true;
}

static bool stride(KrAffineCtx *cx, const KrAffine *a, const char *var, long long *out, int depth) {
  if (!a->ok || depth > 16) return false;
  long long sum = 0;
  for (size_t i = 0; i < a->terms.len; i++) {
    const KrAffTerm *t = &a->terms.data[i];
    if (!t->var) continue;
    long long part = 0;
    if (t->kind == KR_AVAR_LOOP) {
      const KrAffine *init = kr_affine_loop_init(cx, t->loop);
      const KrAffine *step = kr_affine_loop_step(cx, t->loop);
      long long s_init, s_step;
      if (!init || !step || !step->ok) return false;
      /* The step must be the same for neighbouring threads, or the distance between their
       * values would change from iteration to iteration. */
      for (size_t j = 0; j < step->terms.len; j++)
        if (step->terms.data[j].kind == KR_AVAR_THREAD && step->terms.data[j].var) return false;
      if (!stride(cx, step, var, &s_step, depth + 1) || s_step != 0) return false;
      if (!stride(cx, init, var, &s_init, depth + 1)) return false;
      if (s_init == 0) continue;
      if (t->nsyms) return false;
      if (__builtin_mul_overflow(t->coef, s_init, &part)) return false;
    } else if (strcmp(t->var, var) == 0) {
      if (t->nsyms) return false;
      part = t->coef;
    }
    if (__builtin_add_overflow(sum, part, &sum)) return false;
  }
  *out = sum;
  return true;
}

bool kr_affine_stride(KrAffineCtx *cx, const KrAffine *a, const char *var, long long *out) {
  return stride(cx, a, var, out, 0);
}

bool kr_affine_unit_stride_x(KrAffineCtx *cx, const KrAffine *a) {
  long long s;
  return kr_affine_stride(cx, a, "threadIdx.x", &s) && s == 1;
}

bool kr_affine_invariant_in(KrAffineCtx *cx, const KrAffine *a, int loop) {
  if (!a->ok) return false;
  for (size_t i = 0; i < a->terms.len; i++) {
    const KrAffTerm *t = &a->terms.data[i];
    if (!t->var || t->kind != KR_AVAR_LOOP) continue;
    for (int l = t->loop; l >= 0; l = cx->k->loops.data[l].parent)
      if (l == loop) return false;   /* its loop is `loop` or nested inside it */
  }
  return true;
}

bool kr_affine_equal(const KrAffine *a, const KrAffine *b) {
  if (!a->ok || !b->ok || a->terms.len != b->terms.len) return false;
  for (size_t i = 0; i < a->terms.len; i++) {
    const KrAffTerm *x = &a->terms.data[i], *y = &b->terms.data[i];
    if (x->coef != y->coef || term_cmp(x, y) != 0) return false;
  }
  return true;
}

bool kr_affine_const_diff(const KrAffine *a, const KrAffine *b, long long *out) {
  if (!a->ok || !b->ok) return false;
  long long d = 0;
  size_t i = 0, j = 0;
  while (i < a->terms.len || j < b->terms.len) {
    const KrAffTerm *x = i < a->terms.len ? &a->terms.data[i] : NULL;
    const KrAffTerm *y = j < b->terms.len ? &b->terms.data[j] : NULL;
    int c = !x ? 1 : !y ? -1 : term_cmp(x, y);
    bool plain_x = x && !x->var && x->nsyms == 0, plain_y = y && !y->var && y->nsyms == 0;
    if (c == 0) {
      if (x->coef != y->coef && !plain_x) return false;
      long long diff;
      if (plain_x && (__builtin_sub_overflow(x->coef, y->coef, &diff) ||
                      __builtin_add_overflow(d, diff, &d)))
        return false;
      i++, j++;
    } else if (c < 0) {
      if (!plain_x || __builtin_add_overflow(d, x->coef, &d)) return false;
      i++;
    } else {
      if (!plain_y || __builtin_sub_overflow(d, y->coef, &d)) return false;
      j++;
    }
  }
  *out = d;
  return true;
}
