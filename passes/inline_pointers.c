/* passes/inline_pointers.c: pointer locals offset into a parameter written as the parameter's index.
 *
 * Before:  const float *xr = x + (size_t)r * n;
 *          for (int j = 0; j < n; ++j) s += xr[j];
 * After:   for (int j = 0; j < n; ++j) s += x[(size_t)r * n + j];
 *
 * Kernels people write name a row (or a tile's corner) with a pointer local: `xr = x + r * n`,
 * `a = &A[row * K]`, `yr = y` (an alias). The nest and the row nest read subscripts of the kernel's
 * pointer parameters only, so such a kernel is refused, and the schedule passes with it. This pass
 * replaces every `p[i]` by `Q[e + i]` and `*p` by `Q[e]`, where p was declared `T *p = Q + e`
 * (`Q - e`, `&Q[e]`, `e + Q`, or `Q` alone), and removes the declaration. A chain (`b = a + 4`, a
 * itself such a local) folds into one index. The offset and the index keep their own types: where
 * the original added them to the pointer one after the other, the rewrite adds them first, recorded
 * as the assumption that the sum does not overflow its type (it cannot where both fit an array
 * index, as they do below 2^31 elements for int).
 *
 * Requires: the pointer is declared with an initializer of one of the forms above from a pointer
 * parameter (or another pointer it inlines), of the parameter's element type (no cast), and is never
 * assigned, incremented or had its address taken; it is used only as `p[i]` or `*p`; its declaration
 * declares nothing else. The offset reads only integer parameters the kernel never assigns, locals
 * declared before the pointer and not changed within its block, the thread and block
 * builtins, and constants; no call, no memory, no name another declaration of the file shadows. A
 * local it reads may change outside the block that declares the pointer (a loop's index, in the
 * header of the loop whose body declares it), not inside.
 * Params: pointers (names; default: every pointer local of that form). Precision: exact. */
#include <ctype.h>
#include <string.h>

#include "frontend/scope.h"
#include "passes/pass.h"

static const KrParamSpec params[] = {
  {.name = "pointers", .type = KR_PARAM_NAMES, .def = "all",
   .doc = "pointer locals to write as indices of their parameter (default: all of that form)"},
};

typedef struct Ptr {
  const char *name;
  TSNode decl;          /* the declaration statement */
  TSNode id;            /* the declared identifier */
  const char *base;     /* the parameter it points into */
  const char *offset;   /* the index of its first element in base, as text; NULL: 0 */
  const char *why;      /* why it cannot be inlined (NULL: it can) */
  uint32_t why_at;
  int from;             /* the pointer local it is offset from (a chain), or -1 */
  KrVec(TSNode) uses;   /* the subscript or dereference expressions */
} Ptr;

typedef struct Change {
  uint32_t name_at;     /* the local's declared name */
  uint32_t at;          /* where it changes */
} Change;

typedef struct Inliner {
  KrPassCtx *cx;
  const KrSyms *s;
  KrVec(Ptr) ptrs;
  KrVec(Change) changed;     /* locals assigned, incremented or whose address is taken */
  bool assigned_param[64];
} Inliner;

static TSNode field(TSNode n, const char *f) { return kr_node_field(n, f); }
static bool is(const Inliner *in, TSNode n, TSSymbol y) { return !ts_node_is_null(n) && ts_node_symbol(n) == y; }

static TSNode unparen(const Inliner *in, TSNode n) { return kr_node_strip_parens(in->cx->tree, n); }
static const char *op_of(const Inliner *in, TSNode n) { return kr_node_operator(in->cx->tree, n, in->cx->arena); }

static Ptr *ptr_of(Inliner *in, TSNode id) {
  if (!is(in, id, in->s->identifier)) return NULL;
  KrBinding b = kr_resolve(in->cx->tree, in->cx->kernel, id);
  if (b.kind != KR_BIND_LOCAL || ts_node_is_null(b.name)) return NULL;
  for (size_t i = 0; i < in->ptrs.len; i++)
    if (ts_node_start_byte(in->ptrs.data[i].id) == ts_node_start_byte(b.name)) return &in->ptrs.data[i];
  return NULL;
}

/* ---- What the kernel changes ------------------------------------------------------------------ */

static void note_target(Inliner *in, TSNode t) {
  t = unparen(in, t);
  if (!is(in, t, in->s->identifier)) return;
  KrBinding b = kr_resolve(in->cx->tree, in->cx->kernel, t);
  if (b.kind == KR_BIND_LOCAL && !ts_node_is_null(b.name)) {
    Change c = {ts_node_start_byte(b.name), ts_node_start_byte(t)};
    kr_vec_push(in->cx->arena, &in->changed, c);
  }
  if (b.kind == KR_BIND_PARAM && b.param >= 0 && b.param < 64) in->assigned_param[b.param] = true;
}

static void changes(Inliner *in, TSNode n, int depth) {
  const KrSyms *s = in->s;
  TSSymbol y = ts_node_symbol(n);
  if (depth > 512) return;
  if (y == s->assignment_expression) note_target(in, field(n, "left"));
  if (y == s->update_expression) note_target(in, field(n, "argument"));
  if (y == s->pointer_expression && strcmp(op_of(in, n), "&") == 0) note_target(in, field(n, "argument"));
  if (y == s->call_expression) {   /* a local passed bare to a callee that may take it by reference */
    TSNode args = field(n, "arguments");
    for (uint32_t i = 0; !ts_node_is_null(args) && i < ts_node_named_child_count(args); i++) {
      const char *callee;
      if (kr_scope_call_may_modify(kr_pass_scope(in->cx), n, i, &callee)) note_target(in, ts_node_named_child(args, i));
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) changes(in, ts_node_named_child(n, i), depth + 1);
}

/* Whether the local declared at `name` changes anywhere (within null), or inside `within`: a pointer
 * declared in a loop's body from the loop's index (`a = A + row * K` in `for (row …)`) sees the index
 * change in the loop's header, between its iterations, never between its declaration and its uses. */
static bool changed(const Inliner *in, TSNode name, TSNode within) {
  for (size_t i = 0; i < in->changed.len; i++) {
    const Change *c = &in->changed.data[i];
    if (c->name_at != ts_node_start_byte(name)) continue;
    if (ts_node_is_null(within) || (c->at >= ts_node_start_byte(within) && c->at < ts_node_end_byte(within))) return true;
  }
  return false;
}

/* ---- The offset -------------------------------------------------------------------------------- */

/* Whether the offset reads only values that are the same wherever the pointer is used; else the
 * reason, located at *at. */
static const char *steady(Inliner *in, TSNode e, const Ptr *p, uint32_t *at) {
  KrPassCtx *cx = in->cx;
  const KrSyms *s = in->s;
  TSSymbol y = ts_node_symbol(e);
  *at = ts_node_start_byte(e);
  if (y == s->call_expression) return kr_arena_printf(cx->arena, "its offset calls '%s'", kr_pass_text(cx, field(e, "function")));
  if (y == s->subscript_expression || (y == s->pointer_expression && strcmp(op_of(in, e), "*") == 0))
    return kr_arena_printf(cx->arena, "its offset reads memory ('%s'), which the kernel may change", kr_pass_text(cx, e));
  if (y == s->assignment_expression || y == s->update_expression || y == s->comma_expression)
    return kr_arena_printf(cx->arena, "its offset has a side effect ('%s')", kr_pass_text(cx, e));
  if (y == s->field_expression) {
    const char *o = kr_pass_text(cx, field(e, "argument"));
    if (strcmp(o, "threadIdx") && strcmp(o, "blockIdx") && strcmp(o, "blockDim") && strcmp(o, "gridDim"))
      return kr_arena_printf(cx->arena, "its offset reads a member ('%s')", kr_pass_text(cx, e));
    return NULL;
  }
  if (y == s->identifier) {
    const char *name = kr_pass_text(cx, e);
    KrBinding b = kr_resolve(cx->tree, cx->kernel, e);
    if (b.kind != KR_BIND_NONE && !kr_scope_lookup(kr_pass_scope(cx), name))
      return kr_arena_printf(cx->arena, "its offset reads '%s', a name declared more than once (one could "
                                        "shadow the other where the pointer is used)", name);
    if (b.kind == KR_BIND_PARAM) {
      const KrParam *q = &cx->kernel->params.data[b.param];
      if (q->pointer_depth) return kr_arena_printf(cx->arena, "its offset reads pointer parameter '%s'", name);
      if (b.param < 64 && in->assigned_param[b.param])
        return kr_arena_printf(cx->arena, "its offset reads parameter '%s', which the kernel assigns", name);
      return NULL;
    }
    if (b.kind == KR_BIND_LOCAL) {
      if (ts_node_start_byte(b.name) > ts_node_start_byte(p->id))
        return kr_arena_printf(cx->arena, "its offset reads '%s', declared after it", name);
      if (changed(in, b.name, ts_node_parent(p->decl)))
        return kr_arena_printf(cx->arena, "its offset reads '%s', which the kernel changes where the pointer is in scope",
                               name);
      return NULL;
    }
    if (b.kind == KR_BIND_NONE) {   /* a macro, a builtin, or a file-scope name: only constants */
      const KrDecl *d = kr_scope_lookup(kr_pass_scope(cx), name);
      if (d && !d->in_kernel && !d->is_const)
        return kr_arena_printf(cx->arena, "its offset reads file-scope variable '%s', which may change", name);
      return NULL;
    }
    return kr_arena_printf(cx->arena, "its offset reads '%s', which the pass does not follow", name);
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(e); i++) {
    TSNode c = ts_node_named_child(e, i);
    if (ts_node_symbol(c) == s->field_identifier || ts_node_symbol(c) == s->type_descriptor) continue;
    const char *w = steady(in, c, p, at);
    if (w) return w;
  }
  return NULL;
}

/* Whether expression n can stand as the left or right operand of `+` without parentheses. */
static bool additive(const Inliner *in, TSNode n) {
  const KrSyms *s = in->s;
  TSSymbol y = ts_node_symbol(n);
  if (y == s->binary_expression) {
    const char *op = op_of(in, n);
    return !strcmp(op, "+") || !strcmp(op, "-") || !strcmp(op, "*") || !strcmp(op, "/") || !strcmp(op, "%");
  }
  return y != s->conditional_expression && y != s->assignment_expression && y != s->comma_expression;
}

static const char *operand(Inliner *in, TSNode n) {
  const char *t = kr_pass_text(in->cx, n);
  return additive(in, n) ? t : kr_arena_printf(in->cx->arena, "(%s)", t);
}

/* The index of subscript `sub` as an operand of `+`: the text between its brackets, parenthesized
 * unless it is one additive expression (`a[1, 2]` is the comma's, 2); *one, its only expression or a
 * null node. */
static const char *index_operand(Inliner *in, TSNode sub, TSNode *one) {
  TSNode list = field(sub, "indices");
  *one = (TSNode){0};
  if (ts_node_named_child_count(list) == 1) {
    *one = ts_node_named_child(list, 0);
    return operand(in, *one);
  }
  uint32_t s = ts_node_start_byte(list) + 1, e = ts_node_end_byte(list) - 1;
  return kr_arena_printf(in->cx->arena, "(%.*s)", (int)(e - s), in->cx->src->text + s);
}

/* ---- The candidates --------------------------------------------------------------------------- */

/* The element type of a pointer parameter or pointer local's declaration, without const and
 * __restrict__ ("float"), for comparing the two. */
static const char *element_type(Inliner *in, TSNode decl) {
  TSNode t = field(decl, "type");
  return ts_node_is_null(t) ? "" : kr_pass_text(in->cx, t);
}

/* Reads `T *p = Q + e` (and the other forms) into p; false when the declaration is no such pointer. */
static bool read_pointer(Inliner *in, TSNode decl, TSNode d, Ptr *p) {
  KrPassCtx *cx = in->cx;
  const KrSyms *s = in->s;
  if (!is(in, d, s->init_declarator)) return false;
  TSNode pd = field(d, "declarator"), v = unparen(in, field(d, "value"));
  if (!is(in, pd, s->pointer_declarator)) return false;
  TSNode id = field(pd, "declarator");
  while (is(in, id, s->type_qualifier)) id = ts_node_next_named_sibling(id);
  if (!is(in, id, s->identifier) || ts_node_is_null(v)) return false;
  *p = (Ptr){.name = kr_pass_text(cx, id), .decl = decl, .id = id, .from = -1};
  TSNode base = v, off = {0};
  const char *sub_index = NULL;
  bool minus = false;
  if (is(in, v, s->binary_expression) && (!strcmp(op_of(in, v), "+") || !strcmp(op_of(in, v), "-"))) {
    base = unparen(in, field(v, "left")), off = field(v, "right");
    minus = op_of(in, v)[0] == '-';
    if (!minus && !is(in, base, s->identifier)) base = unparen(in, field(v, "right")), off = field(v, "left");
  } else if (is(in, v, s->pointer_expression) && !strcmp(op_of(in, v), "&")) {
    TSNode sub = unparen(in, field(v, "argument"));
    if (!is(in, sub, s->subscript_expression)) return false;
    base = unparen(in, field(sub, "argument"));
    sub_index = index_operand(in, sub, &off);
    if (ts_node_is_null(off)) return false;
  }
  if (!is(in, base, s->identifier)) return false;
  KrBinding b = kr_resolve(cx->tree, cx->kernel, base);
  Ptr *chain = b.kind == KR_BIND_LOCAL ? ptr_of(in, base) : NULL;
  if (b.kind != KR_BIND_PARAM && !chain) return false;
  if (b.kind == KR_BIND_PARAM && cx->kernel->params.data[b.param].pointer_depth != 1) return false;
  p->why_at = ts_node_start_byte(v);
  const char *own = ts_node_is_null(off) ? NULL
                    : minus ? kr_arena_printf(cx->arena, "-(%s)", kr_pass_text(cx, off))
                    : sub_index ? sub_index : operand(in, off);
  if (chain) {
    p->from = (int)(chain - in->ptrs.data);
    if (chain->why) p->why = kr_arena_printf(cx->arena, "it points into '%s', which cannot be inlined: %s", chain->name, chain->why);
    p->base = chain->base;
    p->offset = !chain->offset ? own : !own ? chain->offset : kr_arena_printf(cx->arena, "%s + %s", chain->offset, own);
  } else {
    p->base = kr_pass_text(cx, base);
    p->offset = own;
    const char *pt = element_type(in, cx->kernel->params.data[b.param].node), *lt = element_type(in, decl);
    if (strcmp(pt, lt) != 0)
      p->why = kr_arena_printf(cx->arena, "its elements ('%s') are not those of '%s' ('%s')", lt, p->base, pt);
  }
  /* Its elements volatile where the parameter's are not: every access must stay a fresh load. */
  KrScope *sc = kr_pass_scope(cx);
  if (!p->why && kr_scope_has_word(sc, decl, "volatile")) {
    bool param_volatile = false;
    for (size_t i = 0; i < cx->kernel->params.len; i++)
      if (strcmp(cx->kernel->params.data[i].name, p->base) == 0)
        param_volatile = kr_scope_has_word(sc, cx->kernel->params.data[i].node, "volatile");
    if (!param_volatile) p->why = kr_arena_printf(cx->arena, "it reads '%s' as volatile, and the parameter is not", p->base);
  }
  if (!p->why && (kr_scope_has_word(sc, decl, "static") || kr_scope_has_word(sc, decl, "__shared__") ||
                  kr_scope_has_word(sc, decl, "extern")))
    p->why = "it is not an automatic local (static, extern or __shared__)";
  if (!p->why && !kr_scope_lookup(kr_pass_scope(cx), p->base))
    p->why = kr_arena_printf(cx->arena, "'%s' is a name declared more than once (one could shadow it where the "
                                        "pointer is used)", p->base);
  uint32_t at;
  const char *w = p->why || ts_node_is_null(off) ? NULL : steady(in, off, p, &at);
  if (w) p->why = w, p->why_at = at;
  if (!p->why && ts_node_named_child_count(decl) > 2)
    for (uint32_t i = 0; i < ts_node_named_child_count(decl); i++) {
      TSNode c = ts_node_named_child(decl, i);
      if (!ts_node_eq(c, d) && (is(in, c, s->init_declarator) || is(in, c, s->identifier) || is(in, c, s->pointer_declarator)))
        p->why = "its declaration declares other names too (declare it alone)";
    }
  if (!p->why && changed(in, id, (TSNode){0})) p->why = "it is assigned, incremented or has its address taken";
  return true;
}

static void find_pointers(Inliner *in, TSNode n, int depth) {
  if (depth > 512) return;
  if (is(in, n, in->s->declaration)) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      Ptr p;
      if (read_pointer(in, n, ts_node_named_child(n, i), &p)) kr_vec_push(in->cx->arena, &in->ptrs, p);
    }
    return;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) find_pointers(in, ts_node_named_child(n, i), depth + 1);
}

/* Every use of each pointer: a subscript's base or a dereference; any other use is a reason. */
static void find_uses(Inliner *in, TSNode n, int depth) {
  const KrSyms *s = in->s;
  if (depth > 512) return;
  Ptr *p = is(in, n, s->identifier) ? ptr_of(in, n) : NULL;
  if (p && !ts_node_eq(n, p->id)) {
    TSNode u = n, up = ts_node_parent(n);
    while (is(in, up, s->parenthesized_expression)) u = up, up = ts_node_parent(up);
    bool sub = is(in, up, s->subscript_expression) && ts_node_eq(unparen(in, field(up, "argument")), n);
    bool deref = is(in, up, s->pointer_expression) && !strcmp(op_of(in, up), "*");
    bool chained = false;   /* the base of a pointer offset from it */
    for (size_t i = 0; i < in->ptrs.len; i++)
      chained |= in->ptrs.data[i].from == (int)(p - in->ptrs.data) &&
                 ts_node_start_byte(in->ptrs.data[i].decl) < ts_node_start_byte(n) &&
                 ts_node_end_byte(in->ptrs.data[i].decl) >= ts_node_end_byte(n);
    if (sub || deref) kr_vec_push(in->cx->arena, &p->uses, up);
    else if (!chained && !p->why) {
      TSNode shown = ts_node_is_null(up) ? u : up;   /* an argument: the call */
      if (!ts_node_is_null(up) && ts_node_symbol(up) == s->argument_list) shown = ts_node_parent(up);
      p->why = kr_arena_printf(in->cx->arena, "it is used other than as '%s[i]' or '*%s' ('%s')", p->name, p->name,
                               kr_pass_text(in->cx, shown));
      p->why_at = ts_node_start_byte(n);
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) find_uses(in, ts_node_named_child(n, i), depth + 1);
}

/* ---- Check and apply ------------------------------------------------------------------------- */

static bool chosen(const KrValue *names, const Ptr *p) { return kr_pass_names_has(names, p->name); }

static const char *pointer_names(Inliner *in) {
  KrBuf b = {0};
  for (size_t i = 0; i < in->ptrs.len; i++) kr_buf_printf(&b, "%s%s", b.len ? ", " : "", in->ptrs.data[i].name);
  const char *r = kr_arena_strdup(in->cx->arena, b.data ? b.data : "none");
  kr_buf_free(&b);
  return r;
}

static KrStatus analyse(KrPassCtx *cx, Inliner *in) {
  *in = (Inliner){.cx = cx, .s = &cx->tree->sym};
  const KrKernel *k = cx->kernel;
  TSNode body = field(k->node, "body");
  if (ts_node_is_null(body)) return kr_pass_skip(cx, k->span.start, "kernel '%s' has no body", k->name);
  changes(in, body, 0);
  find_pointers(in, body, 0);
  find_uses(in, body, 0);
  const KrValue *names = kr_pass_arg(cx, "pointers");
  for (size_t i = 0; i < names->names.len; i++) {
    bool found = false;
    for (size_t j = 0; j < in->ptrs.len; j++) found |= strcmp(in->ptrs.data[j].name, names->names.data[i]) == 0;
    if (!found)
      return kr_pass_skip(cx, k->span.start, "kernel '%s' has no pointer local '%s' offset into a parameter (those: %s)",
                          k->name, names->names.data[i], pointer_names(in));
  }
  if (in->ptrs.len == 0)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' declares no pointer local offset into a pointer parameter", k->name);
  for (size_t i = 0; i < in->ptrs.len; i++) {
    const Ptr *p = &in->ptrs.data[i];
    if (chosen(names, p) && p->why)
      return kr_pass_skip(cx, p->why_at, "pointer '%s' cannot be written as an index of '%s': %s", p->name,
                          p->base ? p->base : "its parameter", p->why);
  }
  for (size_t i = 0; i < in->ptrs.len; i++) {
    const Ptr *p = &in->ptrs.data[i];
    /* A pointer offset from a chosen one keeps its declaration only if chosen too (its base goes). */
    if (p->from >= 0 && !chosen(names, p) && chosen(names, &in->ptrs.data[p->from]))
      return kr_pass_skip(cx, ts_node_start_byte(p->id), "pointer '%s' is offset from '%s', whose declaration goes; name "
                          "'%s' too", p->name, in->ptrs.data[p->from].name, p->name);
    /* One use inside another's index (a[b[i]], both inlined) is not rewritten. */
    for (size_t u = 0; chosen(names, p) && u < p->uses.len; u++)
      for (size_t j = 0; j < in->ptrs.len; j++)
        for (size_t v = 0; chosen(names, &in->ptrs.data[j]) && v < in->ptrs.data[j].uses.len; v++) {
          TSNode a = p->uses.data[u], b = in->ptrs.data[j].uses.data[v];
          if (!ts_node_eq(a, b) && ts_node_start_byte(b) >= ts_node_start_byte(a) && ts_node_end_byte(b) <= ts_node_end_byte(a))
            return kr_pass_skip(cx, ts_node_start_byte(b), "'%s' is used inside the index of '%s' (inline one at a time)",
                                kr_pass_text(cx, b), kr_pass_text(cx, a));
        }
  }
  return KR_OK;
}

static KrStatus check(KrPassCtx *cx) {
  Inliner in;
  return analyse(cx, &in);
}

static KrStatus apply(KrPassCtx *cx) {
  Inliner in;
  KrStatus st = analyse(cx, &in);
  if (st != KR_OK) return st;
  const KrValue *names = kr_pass_arg(cx, "pointers");
  KrBuf list = {0};
  for (size_t i = 0; i < in.ptrs.len; i++) {
    const Ptr *p = &in.ptrs.data[i];
    if (!chosen(names, p)) continue;
    for (size_t u = 0; u < p->uses.len; u++) {
      TSNode use = p->uses.data[u];
      const char *idx;
      if (ts_node_symbol(use) == in.s->subscript_expression) {
        TSNode one;
        const char *it = index_operand(&in, use, &one);
        idx = p->offset ? kr_arena_printf(cx->arena, "%s + %s", p->offset, it) : !ts_node_is_null(one) ? kr_pass_text(cx, one) : it;
      } else {
        idx = p->offset ? p->offset : "0";
      }
      kr_pass_replace_node(cx, use, kr_arena_printf(cx->arena, "%s[%s]", p->base, idx));
    }
    kr_pass_remove_statement(cx, p->decl);
    kr_buf_printf(&list, "%s%s (%s + %s)", list.len ? ", " : "", p->name, p->base, p->offset ? p->offset : "0");
  }
  kr_pass_assume(cx, "the offset of each inlined pointer plus an index taken from it does not overflow the "
                     "offset's type: %s", list.data ? list.data : "");
  kr_buf_free(&list);
  return KR_OK;
}

const KrPass kr_pass_inline_pointers = {
  .name = "inline_pointers",
  .summary = "pointer locals offset into a parameter (xr = x + r * n) written as the parameter's index",
  .doc = "Replaces p[i] by Q[e + i] and *p by Q[e] for each pointer local declared T *p = Q + e (or Q - e, "
         "&Q[e], e + Q, Q, or a chain of these) from a pointer parameter Q, and removes its declaration, "
         "so that the nest and the row nest read the kernel. Refuses pointers assigned or used otherwise, "
         "offsets that read memory, call, or read names the kernel changes or shadows, and casts.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .before_schedule = true,
  .search = {.prepares = true},
  .check = check,
  .apply = apply,
};
