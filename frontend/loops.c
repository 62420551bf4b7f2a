/* frontend/loops.c: loop analyses of one kernel (loops.h), over the declaration table
 * (scope.c), constant evaluation (consteval.c) and expression types (types.c): canonical for
 * loops and their trip counts, what a loop body does (modifies the induction variable, leaves
 * early), the set of variables that vary across a loop's iterations, and where text can be put
 * before a loop.
 *
 * The analyses are conservative in one direction only: whatever they cannot see through (a call
 * to an unknown function, a name declared twice, a template type) makes a fact unknown, never
 * assumed. Passes turn unknown into a refusal with the reason given here. */
#include "frontend/loops.h"

#include "frontend/affine.h"
#include "frontend/consteval.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ==== Context ================================================================================ */

/* A modification or declaration seen by scan(), for body facts and varying sets. */
typedef struct Event {
  const char *name;
  TSNode id;            /* the identifier, for name resolution; null when not kept */
  uint32_t at;
  const char *what;     /* "assigned", "incremented", "declared", … */
  bool is_decl;
} Event;

typedef KrVec(Event) Events;

typedef struct Exits {
  KrWhere brk, cont, ret, jump;
} Exits;

struct KrLoops {
  const KrTree *t;
  const KrSyms *s;
  const KrKernel *k;
  KrArena *a;
  KrScope *sc;                       /* the declaration table (scope.h) */
  Events escaped;                    /* address taken, bound to a reference, written in a lambda */
  KrLoopInfo **infos;
};

#define MAX_DEPTH 400   /* tree depth beyond which walks stop (pathological input only) */

/* ---- Small helpers ---------------------------------------------------------------------------- */

static TSSymbol sym(TSNode n) { return ts_node_symbol(n); }

static TSNode field(TSNode n, const char *name) { return kr_node_field(n, name); }

static char *text(KrLoops *lx, TSNode n) { return kr_node_text(lx->t, n, lx->a); }

static char *flat(KrLoops *lx, TSNode n) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return kr_text_fold(lx->a, lx->t->src->text + s, e - s);
}

static bool is(KrLoops *lx, TSNode n, const char *s) { return kr_node_text_is(lx->t, n, s); }

static char *op_of(KrLoops *lx, TSNode n) { return kr_node_operator(lx->t, n, lx->a); }

static TSNode strip_parens(KrLoops *lx, TSNode n) { return kr_node_strip_parens(lx->t, n); }

static bool ident_is(KrLoops *lx, TSNode n, const char *name) {
  n = strip_parens(lx, n);
  return !ts_node_is_null(n) && sym(n) == lx->s->identifier && is(lx, n, name);
}

static const char *pos(KrLoops *lx, uint32_t at) {
  const KrSource *src = lx->t->src;
  uint32_t line = kr_source_line_of(src, at);
  return kr_arena_printf(lx->a, "%u:%u", line + 1, at - src->line_starts[line] + 1);
}

/* "what at LINE:COL". */
static KrWhere where(KrLoops *lx, uint32_t at, const char *what) {
  KrWhere w = {.found = true, .at = at};
  w.what = kr_arena_printf(lx->a, "%s at %s", what, pos(lx, at));
  return w;
}

/* ==== Scanning statements: modifications, declarations and exits =============================== */

static void declared(KrLoops *lx, Events *ev, TSNode id) {
  Event e = {.name = text(lx, id), .id = id, .at = ts_node_start_byte(id), .what = "declared",
             .is_decl = true};
  kr_vec_push(lx->a, ev, e);
}

/* The variable an lvalue names at its root: `a` for a, (a), a.x; NULL for memory (a[i], *p). */
static TSNode lvalue_id(KrLoops *lx, TSNode n) {
  n = strip_parens(lx, n);
  while (!ts_node_is_null(n) && sym(n) == lx->s->field_expression &&
         is(lx, field(n, "operator"), "."))
    n = strip_parens(lx, field(n, "argument"));
  if (ts_node_is_null(n) || sym(n) != lx->s->identifier) return (TSNode){0};
  return n;
}

/* Records that the variable at the root of lvalue n is modified (no event for memory). */
static void modified(KrLoops *lx, Events *ev, TSNode n, uint32_t at, const char *what) {
  TSNode id = lvalue_id(lx, n);
  if (ts_node_is_null(id)) return;
  Event e = {.name = text(lx, id), .id = id, .at = at, .what = what};
  kr_vec_push(lx->a, ev, e);
}

static void scan_decl(KrLoops *lx, TSNode decl, Events *ev) {
  uint32_t n = ts_node_child_count(decl);
  for (uint32_t i = 0; i < n; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (!f || strcmp(f, "declarator") != 0) continue;
    int depth = 0;
    bool ref = false;
    TSNode value = {0};
    TSNode name = kr_scope_declarator(lx->sc, ts_node_child(decl, i), &depth, &ref, &value);
    if (ts_node_is_null(name)) continue;
    declared(lx, ev, name);
    /* `int &r = x;` makes r an alias of x: x may change through r. */
    if (ref && !kr_scope_has_word(lx->sc, decl, "const") && !ts_node_is_null(value))
      modified(lx, ev, value, ts_node_start_byte(value), "bound to a reference");
  }
}

static void scan_call(KrLoops *lx, TSNode call, Events *ev) {
  TSNode fn = field(call, "function");
  if (!ts_node_is_null(fn) && sym(fn) == lx->s->field_expression &&
      is(lx, field(fn, "operator"), "."))
    modified(lx, ev, field(fn, "argument"), ts_node_start_byte(call),
             "has a member function called on it");
  TSNode args = field(call, "arguments");
  if (ts_node_is_null(args)) return;
  uint32_t n = ts_node_named_child_count(args), k = 0;
  for (uint32_t i = 0; i < n; i++) {
    TSNode a = ts_node_named_child(args, i);
    if (sym(a) == lx->s->comment) continue;
    const char *callee;
    if (!ts_node_is_null(lvalue_id(lx, a)) && kr_scope_call_may_modify(lx->sc, call, k, &callee))
      modified(lx, ev, a, ts_node_start_byte(a),
               kr_arena_printf(lx->a, "passed to '%s', which could take it by reference", callee));
    k++;
  }
}

typedef struct Nest {
  bool loop, sw, lambda;
} Nest;

static void scan_exit(KrLoops *lx, TSNode n, Nest nest, Exits *ex) {
  TSSymbol s = sym(n);
  uint32_t at = ts_node_start_byte(n);
  if (nest.lambda) return;
  if (s == lx->s->break_statement && !nest.loop && !nest.sw && !ex->brk.found)
    ex->brk = where(lx, at, "'break'");
  else if (s == lx->s->continue_statement && !nest.loop && !ex->cont.found)
    ex->cont = where(lx, at, "'continue'");
  else if (s == lx->s->return_statement && !ex->ret.found)
    ex->ret = where(lx, at, "'return'");
  else if (s == lx->s->goto_statement && !ex->jump.found)
    ex->jump = where(lx, at, "'goto'");
  else if (s == lx->s->labeled_statement && !ex->jump.found)
    ex->jump = where(lx, at, "a label");
  else if (s == lx->s->case_statement && !nest.sw && !ex->jump.found)
    ex->jump = where(lx, at, "a case label of an enclosing switch");
}

static bool has_word_in(const char *body, const char *w) {
  size_t n = strlen(w);
  for (const char *p = strstr(body, w); p; p = strstr(p + 1, w))
    if ((p == body || !kr_ident_char(p[-1])) && !kr_ident_char(p[n])) return true;
  return false;
}

/* Does a macro body assign or increment anything? (`=` that is not part of ==, !=, <= or >=.) */
static bool body_mutates(const char *b) {
  if (strstr(b, "++") || strstr(b, "--")) return true;
  for (const char *p = strchr(b, '='); p; p = strchr(p + 1, '=')) {
    char prev = p > b ? p[-1] : 0, prev2 = p > b + 1 ? p[-2] : 0;
    if (p[1] == '=' || prev == '=' || prev == '!') continue;
    if ((prev == '<' || prev == '>') && prev2 != prev) continue;
    return true;
  }
  return false;
}

/* An identifier naming a macro of this file: what its expansion may do is taken from its body's
 * text: every word of a body that assigns counts as modified, and break/continue/return/goto in
 * it count as exits. */
static void scan_macro(KrLoops *lx, TSNode id, Nest nest, Events *ev, Exits *ex) {
  const char *name = text(lx, id);
  uint32_t at = ts_node_start_byte(id);
  for (size_t i = 0; i < lx->sc->macros.len; i++) {
    const KrMacro *m = &lx->sc->macros.data[i];
    if (strcmp(m->name, name) != 0 || !m->body) continue;
    if (ex && !nest.lambda) {
      const char *what = kr_arena_printf(lx->a, "'%%s' inside macro '%s'", name);
      if (!nest.loop && !nest.sw && has_word_in(m->body, "break") && !ex->brk.found)
        ex->brk = where(lx, at, kr_arena_printf(lx->a, what, "break"));
      if (!nest.loop && has_word_in(m->body, "continue") && !ex->cont.found)
        ex->cont = where(lx, at, kr_arena_printf(lx->a, what, "continue"));
      if (has_word_in(m->body, "return") && !ex->ret.found)
        ex->ret = where(lx, at, kr_arena_printf(lx->a, what, "return"));
      if (has_word_in(m->body, "goto") && !ex->jump.found)
        ex->jump = where(lx, at, kr_arena_printf(lx->a, what, "goto"));
    }
    if (!body_mutates(m->body)) continue;
    for (const char *p = m->body; *p;) {
      if (!kr_ident_char(*p) || (*p >= '0' && *p <= '9')) {
        p++;
        continue;
      }
      const char *e = p;
      while (kr_ident_char(*e)) e++;
      Event x = {.name = kr_arena_strndup(lx->a, p, (size_t)(e - p)), .at = at,
                 .what = kr_arena_printf(lx->a, "possibly assigned by macro '%s'", name)};
      kr_vec_push(lx->a, ev, x);
      p = e;
    }
  }
}

static void scan(KrLoops *lx, TSNode n, Nest nest, Events *ev, Exits *ex, int depth) {
  if (depth > MAX_DEPTH) return;
  TSSymbol s = sym(n);
  uint32_t at = ts_node_start_byte(n);
  if (ex) scan_exit(lx, n, nest, ex);
  if (s == lx->s->identifier && lx->sc->macros.len) scan_macro(lx, n, nest, ev, ex);
  if (s == lx->s->for_range_loop) {
    int depth_ = 0;
    bool ref = false;
    TSNode id = kr_scope_declarator(lx->sc, field(n, "declarator"), &depth_, &ref, NULL);
    if (!ts_node_is_null(id)) declared(lx, ev, id);
  }
  if (s == lx->s->assignment_expression) {
    modified(lx, ev, field(n, "left"), at, "assigned");
  } else if (s == lx->s->update_expression) {
    modified(lx, ev, field(n, "argument"), at, "incremented");
  } else if (s == lx->s->pointer_expression && strcmp(op_of(lx, n), "&") == 0) {
    modified(lx, ev, field(n, "argument"), at, "has its address taken");
  } else if (s == lx->s->declaration) {
    scan_decl(lx, n, ev);
  } else if (s == lx->s->parameter_declaration) {
    scan_decl(lx, n, ev); /* lambda parameters */
  } else if (s == lx->s->call_expression) {
    scan_call(lx, n, ev);
  } else if (s == lx->s->gnu_asm_output_operand) {
    modified(lx, ev, field(n, "value"), at, "written by inline asm");
  }
  if (s == lx->s->for_statement || s == lx->s->while_statement || s == lx->s->do_statement ||
      s == lx->s->for_range_loop)
    nest.loop = true;
  else if (s == lx->s->switch_statement)
    nest.sw = true;
  else if (s == lx->s->lambda_expression)
    nest.lambda = true;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++) scan(lx, ts_node_named_child(n, i), nest, ev, ex, depth + 1);
}

/* Kernel-wide aliasing: variables whose address is taken or that are bound to a non-const
 * reference anywhere, and variables written inside a lambda (which may run anywhere it is
 * called). They may change wherever a pointer, reference or lambda is used, so they never count
 * as invariant. */
static void collect_escaped(KrLoops *lx) {
  Events all = {0};
  scan(lx, lx->k->body, (Nest){0}, &all, NULL, 0);
  for (size_t i = 0; i < all.len; i++) {
    const Event *e = &all.data[i];
    if (!e->is_decl && (strcmp(e->what, "has its address taken") == 0 ||
                        strcmp(e->what, "bound to a reference") == 0))
      kr_vec_push(lx->a, &lx->escaped, *e);
  }
  /* Writes inside lambdas. */
  Events lam = {0};
  KrVec(TSNode) stack = {0};
  kr_vec_push(lx->a, &stack, lx->k->body);
  while (stack.len) {
    TSNode n = stack.data[--stack.len];
    if (sym(n) == lx->s->lambda_expression) {
      scan(lx, n, (Nest){0}, &lam, NULL, 0);
      continue;
    }
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) kr_vec_push(lx->a, &stack, ts_node_named_child(n, i));
  }
  for (size_t i = 0; i < lam.len; i++)
    if (!lam.data[i].is_decl) {
      Event e = lam.data[i];
      e.what = "assigned inside a lambda";
      kr_vec_push(lx->a, &lx->escaped, e);
    }
}

/* ==== Construction ============================================================================= */

KrLoops *kr_loops_new(const KrTree *tree, const KrKernel *kernel, KrArena *arena) {
  return kr_loops_new_in(tree, kernel, kr_scope_new(tree, kernel, arena), arena);
}

KrLoops *kr_loops_new_in(const KrTree *tree, const KrKernel *kernel, KrScope *scope,
                         KrArena *arena) {
  KrLoops *lx = kr_arena_alloc(arena, sizeof *lx);
  lx->t = tree;
  lx->s = &tree->sym;
  lx->k = kernel;
  lx->a = arena;
  lx->sc = scope;
  collect_escaped(lx);
  lx->infos = kr_arena_alloc(arena, (kernel->loops.len + 1) * sizeof *lx->infos);
  return lx;
}


/* ==== Loop invariance ========================================================================== */

static bool is_builtin_index(const char *name) {
  return strcmp(name, "threadIdx") == 0 || strcmp(name, "blockIdx") == 0 ||
         strcmp(name, "blockDim") == 0 || strcmp(name, "gridDim") == 0;
}

bool kr_names_has(const KrNameSet *self, const char *name) {
  for (size_t i = 0; i < self->names.len; i++)
    if (strcmp(self->names.data[i], name) == 0) return true;
  return false;
}

static void names_add(KrLoops *lx, KrNameSet *set, const char *name) {
  if (!kr_names_has(set, name)) kr_vec_push(lx->a, &set->names, name);
}

static void add_escaped(KrLoops *lx, KrNameSet *set) {
  for (size_t i = 0; i < lx->escaped.len; i++) names_add(lx, set, lx->escaped.data[i].name);
}

void kr_loops_varying(KrLoops *self, size_t index, KrNameSet *out) {
  memset(out, 0, sizeof *out);
  if (index >= self->k->loops.len) return;
  Events ev = {0};
  scan(self, self->k->loops.data[index].node, (Nest){0}, &ev, NULL, 0);
  for (size_t i = 0; i < ev.len; i++) names_add(self, out, ev.data[i].name);
  add_escaped(self, out);
}

/* A name whose value the kernel itself controls: a parameter, a local (not __shared__ or
 * volatile: other threads or hardware may change those), a template parameter, a file-scope
 * constant or a constant macro. */
static bool value_name(KrLoops *lx, const char *name, uint32_t at) {
  if (strcmp(name, "warpSize") == 0) return true;
  const KrMacro *m = NULL;
  if (kr_scope_macro(lx->sc, name, &m)) {
    long long v;
    if (kr_const_of_name(lx->sc, name, at, &v, NULL)) return true;
    /* Defined more than once or under #if: invariant when every definition is a constant. */
    for (size_t i = 0; i < lx->sc->macros.len; i++) {
      const KrMacro *d = &lx->sc->macros.data[i];
      if (strcmp(d->name, name) != 0) continue;
      if (!d->body || !kr_const_eval_text(lx->sc, d->body, strlen(d->body), d->at + 1, &v, NULL))
        return false;
    }
    return true;
  }
  bool seen = false;
  for (size_t i = 0; i < lx->sc->decls.len; i++) {
    const KrDecl *d = &lx->sc->decls.data[i];
    if (strcmp(d->name, name) != 0) continue;
    seen = true;
    if (!d->in_kernel && !d->is_const) return false;
    if (d->is_memory || strstr(d->type, "volatile") || d->is_ref) return false;
  }
  if (!seen) return false;
  /* __shared__ scalars are memory other threads write. */
  for (size_t i = 0; i < lx->k->shared.len; i++)
    if (strcmp(lx->k->shared.data[i].name, name) == 0) return false;
  return true;
}

static bool invariant(KrLoops *lx, TSNode n, const KrNameSet *varying, TSNode *culprit, int depth) {
  if (ts_node_is_null(n) || depth > MAX_DEPTH) return false;
  TSSymbol s = sym(n);
  const KrSyms *y = lx->s;
  bool ok = false;
  if (s == y->number_literal || s == lx->s->char_literal || s == lx->s->lit_true ||
      s == lx->s->lit_false || s == y->sizeof_expression || s == y->comment) {
    return true;
  } else if (s == y->identifier) {
    const char *name = text(lx, n);
    ok = !kr_names_has(varying, name) && value_name(lx, name, ts_node_start_byte(n));
  } else if (s == y->field_expression) {
    TSNode arg = field(n, "argument");
    if (!is(lx, field(n, "operator"), ".")) {
      ok = false;
    } else if (sym(arg) == y->identifier && is_builtin_index(text(lx, arg))) {
      return true;
    } else {
      return invariant(lx, arg, varying, culprit, depth + 1);
    }
  } else if (s == y->parenthesized_expression || s == y->binary_expression ||
             s == y->unary_expression || s == y->conditional_expression) {
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++)
      if (!invariant(lx, ts_node_named_child(n, i), varying, culprit, depth + 1)) return false;
    return k > 0;
  } else if (s == y->cast_expression) {
    return invariant(lx, field(n, "value"), varying, culprit, depth + 1);
  }
  if (!ok && culprit && ts_node_is_null(*culprit)) *culprit = n;
  return ok;
}

bool kr_loops_invariant(KrLoops *self, TSNode expr, const KrNameSet *varying, TSNode *culprit) {
  if (culprit) *culprit = (TSNode){0};
  return invariant(self, expr, varying, culprit, 0);
}

/* ==== Canonical loops and trip counts ========================================================== */

static const char *const cmp_text[] = {"<", "<=", ">", ">=", "!="};

static bool parse_cmp(const char *op, KrCmp *c) {
  for (int i = 0; i < 5; i++)
    if (strcmp(op, cmp_text[i]) == 0) {
      *c = (KrCmp)i;
      return true;
    }
  return false;
}

static KrCmp flip(KrCmp c) {
  switch (c) {
  case KR_CMP_LT: return KR_CMP_GT;
  case KR_CMP_LE: return KR_CMP_GE;
  case KR_CMP_GT: return KR_CMP_LT;
  case KR_CMP_GE: return KR_CMP_LE;
  default: return c;
  }
}

static bool mentions(KrLoops *lx, TSNode n, const char *name, int depth) {
  if (ts_node_is_null(n) || depth > MAX_DEPTH) return false;
  if (sym(n) == lx->s->identifier && is(lx, n, name)) return true;
  uint32_t k = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (mentions(lx, ts_node_named_child(n, i), name, depth + 1)) return true;
  return false;
}

static void not_canonical(KrLoops *lx, KrLoopInfo *li, TSNode at, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

static void not_canonical(KrLoops *lx, KrLoopInfo *li, TSNode at, const char *fmt, ...) {
  if (!li->canonical) return; /* keep the first reason */
  va_list ap;
  va_start(ap, fmt);
  li->why = kr_arena_vprintf(lx->a, fmt, ap);
  va_end(ap);
  li->why_at = ts_node_start_byte(at);
  li->canonical = false;
}

static void read_init(KrLoops *lx, KrLoopInfo *li, TSNode loop) {
  TSNode init = field(loop, "initializer");
  if (ts_node_is_null(init)) {
    not_canonical(lx, li, loop, "the loop has no initializer");
    return;
  }
  if (sym(init) == lx->s->declaration) {
    TSNode d = field(init, "declarator");
    TSNode type = field(init, "type");
    uint32_t count = 0;
    for (uint32_t i = 0; i < ts_node_child_count(init); i++) {
      const char *f = ts_node_field_name_for_child(init, i);
      if (f && strcmp(f, "declarator") == 0) count++;
    }
    li->init_single = count == 1;
    if (ts_node_is_null(d) || sym(d) != lx->s->init_declarator ||
        sym(field(d, "declarator")) != lx->s->identifier) {
      not_canonical(lx, li, init, "the initializer '%s' does not give the variable a value",
                    flat(lx, init));
      return;
    }
    li->var = text(lx, field(d, "declarator"));
    li->init = field(d, "value");
    li->var_declared = true;
    li->var_type = ts_node_is_null(type) ? "" : flat(lx, type);
    if (!ts_node_is_null(type) && sym(type) == lx->s->placeholder_type_specifier)
      {
      KrType t = kr_type_of(lx->sc, li->init); /* auto i = 0 */
      li->var_cls = t.depth || t.vector ? KR_TY_UNKNOWN : t.cls;
    }
    else
      li->var_cls = kr_type_of_name(li->var_type).cls;
    return;
  }
  if (sym(init) == lx->s->assignment_expression && strcmp(op_of(lx, init), "=") == 0 &&
      sym(field(init, "left")) == lx->s->identifier) {
    li->var = text(lx, field(init, "left"));
    li->init = field(init, "right");
    li->init_single = true;
    KrType t = kr_type_of_ident(lx->sc, li->var);
    li->var_cls = t.depth || t.vector ? KR_TY_OTHER : t.cls;
    return;
  }
  not_canonical(lx, li, init, "the initializer '%s' does not set one induction variable",
                flat(lx, init));
}

static void read_cond(KrLoops *lx, KrLoopInfo *li, TSNode loop) {
  TSNode c = field(loop, "condition");
  if (ts_node_is_null(c)) {
    not_canonical(lx, li, loop, "the loop has no condition");
    return;
  }
  TSNode cs = strip_parens(lx, c);
  KrCmp cmp;
  if (sym(cs) != lx->s->binary_expression || !parse_cmp(op_of(lx, cs), &cmp)) {
    not_canonical(lx, li, c, "the condition '%s' is not a comparison of '%s' with a bound",
                  flat(lx, c), li->var);
    return;
  }
  TSNode l = field(cs, "left"), r = field(cs, "right");
  if (ident_is(lx, l, li->var)) {
    li->bound = r;
    li->cmp = cmp;
  } else if (ident_is(lx, r, li->var)) {
    li->bound = l;
    li->cmp = flip(cmp);
  } else {
    not_canonical(lx, li, c, "the condition '%s' does not compare '%s' itself with a bound",
                  flat(lx, c), li->var);
    return;
  }
  if (mentions(lx, li->bound, li->var, 0))
    not_canonical(lx, li, c, "the bound in '%s' depends on '%s'", flat(lx, c), li->var);
}

/* The stride of the update: ++/-- (no node), or C in `i += C`, `i -= C`, `i = i ± C`, `i = C + i`;
 * *sign is −1 when C is subtracted. */
static bool read_update(KrLoops *lx, KrLoopInfo *li, TSNode u, int *sign) {
  const char *v = li->var;
  *sign = 1;
  if (sym(u) == lx->s->update_expression && ident_is(lx, field(u, "argument"), v)) {
    *sign = strcmp(op_of(lx, u), "--") == 0 ? -1 : 1;
    return true;
  }
  if (sym(u) != lx->s->assignment_expression || !ident_is(lx, field(u, "left"), v)) return false;
  const char *op = op_of(lx, u);
  TSNode r = field(u, "right");
  if (strcmp(op, "+=") == 0 || strcmp(op, "-=") == 0) {
    li->stride = r;
    *sign = op[0] == '-' ? -1 : 1;
  } else if (strcmp(op, "=") == 0) {
    TSNode rs = strip_parens(lx, r);
    if (sym(rs) != lx->s->binary_expression) return false;
    const char *bop = op_of(lx, rs);
    TSNode a = field(rs, "left"), b = field(rs, "right");
    if (strcmp(bop, "+") == 0 && ident_is(lx, a, v)) li->stride = b;
    else if (strcmp(bop, "+") == 0 && ident_is(lx, b, v)) li->stride = a;
    else if (strcmp(bop, "-") == 0 && ident_is(lx, a, v)) {
      li->stride = b;
      *sign = -1;
    } else {
      return false;
    }
  } else {
    return false;
  }
  return !mentions(lx, li->stride, v, 0);
}

static void read_step(KrLoops *lx, KrLoopInfo *li, TSNode loop) {
  TSNode u = field(loop, "update");
  int sign;
  if (ts_node_is_null(u)) {
    not_canonical(lx, li, loop, "the loop has no update");
    return;
  }
  if (!read_update(lx, li, u, &sign)) {
    not_canonical(lx, li, u, "the update '%s' does not step '%s' by a fixed stride", flat(lx, u),
                  li->var);
    return;
  }
  long long c = 1;
  li->stride_const = ts_node_is_null(li->stride) || kr_loops_const(lx, li->stride, &c);
  if (li->stride_const) {
    if (c == 0 || c == LLONG_MIN) {
      not_canonical(lx, li, u, "the update '%s' has stride 0", flat(lx, u));
      return;
    }
    li->stride_v = sign * c;
    li->dir = li->stride_v > 0 ? 1 : -1;
  } else {
    li->dir = sign;
  }
}

static void check_direction(KrLoops *lx, KrLoopInfo *li, TSNode loop) {
  bool up = li->cmp == KR_CMP_LT || li->cmp == KR_CMP_LE;
  bool down = li->cmp == KR_CMP_GT || li->cmp == KR_CMP_GE;
  if ((up && li->dir < 0) || (down && li->dir > 0))
    not_canonical(lx, li, field(loop, "update"),
                  "'%s' %s while the condition '%s' needs it to %s; the loop runs zero times or "
                  "never ends",
                  li->var, li->dir > 0 ? "increases" : "decreases",
                  flat(lx, field(loop, "condition")), up ? "increase" : "decrease");
}

static const char *paren(KrLoops *lx, TSNode n) {
  TSSymbol s = sym(n);
  const KrSyms *y = lx->s;
  const char *t = flat(lx, n);
  if (s == y->identifier || s == y->number_literal || s == y->field_expression ||
      s == y->call_expression || s == y->subscript_expression || s == y->parenthesized_expression)
    return t;
  return kr_arena_printf(lx->a, "(%s)", t);
}

static void symbolic_trip(KrLoops *lx, KrLoopInfo *li) {
  const char *a = paren(lx, li->init), *b = paren(lx, li->bound);
  const char *lo = li->dir > 0 ? a : b, *hi = li->dir > 0 ? b : a;
  const char *diff = strcmp(lo, "0") == 0 ? hi : kr_arena_printf(lx->a, "%s - %s", hi, lo);
  long long m = li->stride_v < 0 ? -li->stride_v : li->stride_v;
  const char *s = li->stride_const ? kr_arena_printf(lx->a, "%lld", m) : paren(lx, li->stride);
  bool one = li->stride_const && m == 1;
  switch (li->cmp) {
  case KR_CMP_LT:
  case KR_CMP_GT:
    if (one) li->trip_text = diff;
    else if (li->stride_const)
      li->trip_text = kr_arena_printf(lx->a, "(%s + %lld) / %lld", diff, m - 1, m);
    else
      li->trip_text = kr_arena_printf(lx->a, "(%s + %s - 1) / %s", diff, s, s);
    break;
  case KR_CMP_LE:
  case KR_CMP_GE:
    li->trip_text = one ? kr_arena_printf(lx->a, "%s + 1", diff)
                        : kr_arena_printf(lx->a, "(%s) / %s + 1", diff, s);
    break;
  case KR_CMP_NE:
    li->trip_text = one ? diff : kr_arena_printf(lx->a, "(%s) / %s", diff, s);
    break;
  }
  li->trip_kind = KR_TRIP_SYMBOLIC;
}

static bool in_range(KrTyClass c, long long v) {
  switch (c) {
  case KR_TY_INT: return v >= INT_MIN && v <= INT_MAX;
  case KR_TY_UINT: return v >= 0 && v <= (long long)UINT_MAX;
  case KR_TY_ULONG: return v >= 0;
  default: return true;
  }
}

static void trip_unknown(KrLoopInfo *li, uint32_t at, const char *why) {
  li->trip_kind = KR_TRIP_UNKNOWN;
  li->trip_why = why;
  li->trip_why_at = at;
}

static void const_trip(KrLoops *lx, KrLoopInfo *li) {
  long long a = li->init_v, b = li->bound_v, s = li->stride_v, m = s < 0 ? -s : s, n = 0, d;
  uint32_t at = ts_node_start_byte(li->loop->node);
  if (!in_range(li->var_cls, a) || !in_range(li->var_cls, b)) {
    trip_unknown(li, at, kr_arena_printf(lx->a, "the start %lld or the bound %lld is outside "
                                                    "the range of '%s'", a, b, li->var));
    return;
  }
  if (__builtin_sub_overflow(li->dir > 0 ? b : a, li->dir > 0 ? a : b, &d)) {
    trip_unknown(li, at, "the distance from the start to the bound overflows");
    return;
  }
  switch (li->cmp) {
  case KR_CMP_LT:
  case KR_CMP_GT: n = d > 0 ? d / m + (d % m != 0) : 0; break;
  case KR_CMP_LE:
  case KR_CMP_GE: n = d >= 0 ? d / m + 1 : 0; break;
  case KR_CMP_NE:
    if (d < 0 || d % m != 0) {
      trip_unknown(li, at, kr_arena_printf(lx->a, "'%s' steps over the bound %lld, so the "
                                                      "condition '!=' never becomes false",
                                               li->var, b));
      return;
    }
    n = d / m;
    break;
  }
  long long last;
  if (__builtin_mul_overflow(n, s, &last) || __builtin_add_overflow(a, last, &last) ||
      !in_range(li->var_cls, last)) {
    trip_unknown(li, at, kr_arena_printf(lx->a, "'%s' would overflow its type before the "
                                                    "condition becomes false", li->var));
    return;
  }
  li->trip_kind = KR_TRIP_CONST;
  li->trip = n;
  li->trip_text = kr_arena_printf(lx->a, "%lld", n);
}

static void trip_count(KrLoops *lx, KrLoopInfo *li, const Events *body) {
  /* The bound and a symbolic stride are evaluated every iteration: they must not change. */
  KrNameSet assigned = {0};
  for (size_t i = 0; i < body->len; i++)
    if (!body->data[i].is_decl) names_add(lx, &assigned, body->data[i].name);
  add_escaped(lx, &assigned);
  TSNode parts[2] = {li->bound, li->stride};
  const char *role[2] = {"bound", "stride"};
  for (int i = 0; i < 2; i++) {
    TSNode culprit;
    if (ts_node_is_null(parts[i]) || kr_loops_invariant(lx, parts[i], &assigned, &culprit))
      continue;
    trip_unknown(li, ts_node_start_byte(culprit),
                 kr_arena_printf(lx->a, "the %s '%s' may change while the loop runs ('%s' at %s)",
                                 role[i], flat(lx, parts[i]), flat(lx, culprit),
                                 pos(lx, ts_node_start_byte(culprit))));
    return;
  }
  li->init_const = kr_loops_const(lx, li->init, &li->init_v);
  li->bound_const = kr_loops_const(lx, li->bound, &li->bound_v);
  if (li->init_const && li->bound_const && li->stride_const) const_trip(lx, li);
  else symbolic_trip(lx, li);
}

/* The declaration the induction variable refers to: the initializer's own, or (for `i = 0`) the
 * one the initializer's assignment resolves to. */
static KrBinding var_binding(KrLoops *lx, const KrLoopInfo *li) {
  KrBinding b = {.kind = KR_BIND_NONE, .param = -1};
  TSNode init = field(li->loop->node, "initializer");
  if (ts_node_is_null(init)) return b;
  if (sym(init) == lx->s->declaration) {
    b.kind = KR_BIND_LOCAL;
    b.decl = init;
    b.name = kr_declarator_name(lx->t, field(init, "declarator"));
    return b;
  }
  TSNode id = lvalue_id(lx, field(init, "left"));
  return ts_node_is_null(id) ? b : kr_resolve(lx->t, lx->k, id);
}

static void body_facts(KrLoops *lx, KrLoopInfo *li, TSNode body, Events *ev) {
  Exits ex = {0};
  scan(lx, body, (Nest){0}, ev, &ex, 0);
  li->brk = ex.brk;
  li->cont = ex.cont;
  li->ret = ex.ret;
  li->jump = ex.jump;
  if (!li->var) return;
  for (size_t i = 0; i < ev->len; i++) {
    const Event *e = &ev->data[i];
    if (strcmp(e->name, li->var) != 0) continue;
    li->var_modified = where(lx, e->at, kr_arena_printf(lx->a, "'%s' is %s", li->var,
                                                        e->is_decl ? "redeclared" : e->what));
    return;
  }
  /* Aliases made elsewhere in the kernel count when they are of this very variable (another
   * loop's `i` is another variable); an alias whose target cannot be resolved counts. */
  KrBinding self = var_binding(lx, li);
  for (size_t i = 0; i < lx->escaped.len; i++) {
    const Event *e = &lx->escaped.data[i];
    if (strcmp(e->name, li->var) != 0) continue;
    KrBinding b = ts_node_is_null(e->id) ? (KrBinding){.kind = KR_BIND_NONE}
                                         : kr_resolve(lx->t, lx->k, e->id);
    if (self.kind != KR_BIND_NONE && b.kind != KR_BIND_NONE && !kr_binding_same(self, b)) continue;
    {
      li->var_modified = where(lx, e->at, kr_arena_printf(lx->a, "'%s' %s", li->var, e->what));
      return;
    }
  }
}

static void analyze(KrLoops *lx, size_t index, KrLoopInfo *li) {
  const KrLoop *loop = &lx->k->loops.data[index];
  static const char *const kinds[] = {"a for", "a while", "a do-while", "a range-for"};
  TSNode n = loop->node, body = field(n, "body");
  li->loop = loop;
  li->canonical = true;
  li->trip_kind = KR_TRIP_UNKNOWN;
  if (loop->kind == KR_LOOP_FOR) read_init(lx, li, n);
  else not_canonical(lx, li, n, "%s loop has no induction variable", kinds[loop->kind]);
  Events ev = {0};
  if (!ts_node_is_null(body)) body_facts(lx, li, body, &ev);
  if (li->canonical) read_cond(lx, li, n);
  if (li->canonical) read_step(lx, li, n);
  if (li->canonical && !kr_ty_is_integer(li->var_cls))
    not_canonical(lx, li, n, li->var_cls == KR_TY_UNKNOWN
                               ? "the type of the induction variable '%s' is not known"
                               : "the induction variable '%s' is not an integer",
                  li->var);
  if (li->canonical) check_direction(lx, li, n);
  if (!li->canonical) {
    trip_unknown(li, li->why_at, li->why);
    return;
  }
  if (li->var_modified.found) {
    trip_unknown(li, li->var_modified.at, li->var_modified.what);
    return;
  }
  trip_count(lx, li, &ev);
}

const KrLoopInfo *kr_loops_info(KrLoops *self, size_t index) {
  if (index >= self->k->loops.len) return NULL;
  if (!self->infos[index]) {
    KrLoopInfo *li = kr_arena_alloc(self->a, sizeof *li);
    analyze(self, index, li);
    self->infos[index] = li;
  }
  return self->infos[index];
}

/* ==== Where text can go ======================================================================== */

uint32_t kr_loops_head(KrLoops *self, size_t index, bool *own_line) {
  return kr_source_head(self->t->src, ts_node_start_byte(self->k->loops.data[index].node),
                        own_line);
}

bool kr_loops_in_block(KrLoops *self, size_t index) {
  TSNode parent = ts_node_parent(self->k->loops.data[index].node);
  return !ts_node_is_null(parent) && sym(parent) == self->s->compound_statement;
}

bool kr_loops_is_macro(KrLoops *self, const char *name) {
  return kr_scope_is_macro(self->sc, name);
}

bool kr_loops_name_used(KrLoops *self, const char *name) {
  return kr_scope_name_used(self->sc, name);
}

/* ==== The units this analysis is built on ====================================================== */

bool kr_loops_const(KrLoops *self, TSNode expr, long long *value) {
  return kr_const_eval(self->sc, expr, value);
}

KrType kr_loops_type(KrLoops *self, TSNode expr) { return kr_type_of(self->sc, expr); }

KrScope *kr_loops_scope(KrLoops *self) { return self->sc; }
