/* passes/fuse.c: an elementwise consumer kernel computed in its producer's epilogue.
 *
 * Before: two kernels and two launches; the producer stores each element of an array once, then
 * the consumer reads it back (and perhaps other arrays at the same element) and writes its result:
 *   conv2d:        ... t[idx] = sum;
 *   relu_inplace:  int i = …; if (i < n) t[i] = fmaxf(t[i], 0.0f);
 * After: the consumer's statements follow the producer's store, at the stored element; the
 * consumer's launches leave the program (the launch change's `drops`):
 *   conv2d:        ... t[idx] = sum;
 *                  t[(idx)] = fmaxf(t[(idx)], 0.0f);
 * The stored array makes one trip to memory instead of three (store, load, store); a schedule pass
 * applied afterwards (implicit_gemm, tile) keeps the consumer's statements as the producer's
 * epilogue, per output.
 *
 * Requires: the producer lifts to a nest (frontend/nest.h) and stores the array the consumer reads
 * once, outside its loop, in a statement of its own; the consumer lifts to a nest of one parallel axis
 * without a loop, whose guard only bounds that axis, whose locals are the axis alone, and whose
 * references all sit at the axis itself (coefficient 1, no offset); the consumer's other names are
 * parameters the producer has under the same name and type (not const where the consumer writes);
 * the producer reads nothing the consumer writes, and the consumer reads nothing else the producer
 * writes.
 * Assumes (recorded): the consumer's parameters are the producer's of the same names (the same
 * buffers and values), and its launches follow the producer's and cover exactly the elements the
 * producer stores: the problem's launches say so, and the verifier runs the whole program.
 * Params: consumer (the kernel to fuse). Precision: exact. */
#include <string.h>

#include "frontend/nest.h"
#include "passes/pass.h"

/* The consumer, lifted, and what the rewrite needs of it. */
typedef struct Fusion {
  const KrKernel *ck;
  const KrNest *cn;
  const char *array;        /* the array the producer stores and the consumer reads */
  const KrNestRef *store;   /* the producer's store of it */
  TSNode stmt;              /* the producer's expression statement of the store */
} Fusion;

static const KrParam *param_named(const KrKernel *k, const char *name) {
  for (size_t i = 0; i < k->params.len; i++)
    if (strcmp(k->params.data[i].name, name) == 0) return &k->params.data[i];
  return NULL;
}

/* Why the producer's parameter `pp` cannot stand for the consumer's `cp` of the same name (another
 * element type or pointer depth, or a const pointee the consumer writes), or NULL. */
static const char *why_not_same(KrPassCtx *cx, const KrParam *pp, const KrParam *cp, bool written) {
  if (!cp) return NULL;
  if (strcmp(pp->base, cp->base) != 0 || pp->pointer_depth != cp->pointer_depth)
    return kr_arena_printf(cx->arena, "fuse: '%s' is '%s' in the producer and '%s' in the consumer", pp->name, pp->type,
                           cp->type);
  if (written && pp->is_const)
    return kr_arena_printf(cx->arena, "fuse: the consumer writes '%s', which the producer declares '%s'", pp->name, pp->type);
  return NULL;
}

static bool writes(const KrNest *n, const char *array) {
  for (size_t i = 0; i < n->refs.len; i++)
    if (n->refs.data[i].write && strcmp(n->refs.data[i].array, array) == 0) return true;
  return false;
}

static KrStatus plan(KrPassCtx *cx, Fusion *f) {
  const char *name = kr_pass_arg(cx, "consumer")->s, *why;
  uint32_t at = ts_node_start_byte(cx->kernel->node);
  memset(f, 0, sizeof *f);
  if (strcmp(name, cx->kernel->name) == 0) return kr_pass_skip(cx, at, "fuse: kernel '%s' cannot consume itself", name);
  f->ck = kr_model_find(cx->model, name);
  if (!f->ck) return kr_pass_skip(cx, at, "fuse: no kernel '%s' in this file", name);
  uint32_t cat = ts_node_start_byte(f->ck->node);
  const KrNest *pn = kr_pass_nest(cx, &why);
  if (!pn) return kr_pass_skip(cx, at, "fuse: the producer '%s' is not a nest: %s", cx->kernel->name, why);
  KrDiags *d = kr_diags_new();
  f->cn = kr_nest_lift(cx->tree, f->ck, cx->arena, d);
  const char *cwhy = kr_arena_strdup(cx->arena, kr_diags_first_error(d) ? kr_diags_first_error(d) : "");
  kr_diags_free(d);
  const KrNest *cn = f->cn;
  if (!cn) return kr_pass_skip(cx, cat, "fuse: the consumer '%s' is not a nest: %s", name, cwhy);
  if (cn->reduce >= 0 || cn->axes.len != 1)
    return kr_pass_skip(cx, cat, "fuse: the consumer '%s' is not elementwise (it has %s)", name,
                        cn->reduce >= 0 ? "a loop" : "more than one parallel axis");
  if (cn->derived.len || cn->flats.len || cn->uniform.len)
    return kr_pass_skip(cx, cat, "fuse: the consumer '%s' declares locals besides its index", name);
  const KrNestAxis *ax = &cn->axes.data[0];
  if (ax->grid_stride) return kr_pass_skip(cx, cat, "fuse: the consumer's index '%s' is a grid-stride loop", ax->name);
  for (size_t i = 0; i < cn->guards.len; i++) {
    const KrNestGuard *g = &cn->guards.data[i];
    const char *want = kr_arena_printf(cx->arena, "%s < %s", ax->name, ax->hi ? ax->hi : "");
    if (strcmp(g->text, want) != 0)
      return kr_pass_skip(cx, g->at, "fuse: the consumer's guard '%s' is more than its index's bound", g->text);
  }
  /* Every reference at the element itself; the stored array among those read. */
  for (size_t i = 0; i < cn->refs.len; i++) {
    const KrNestRef *r = &cn->refs.data[i];
    if (r->index.terms.len != 1 || !kr_nest_coef_is(&r->index, 0, 1))
      return kr_pass_skip(cx, ts_node_start_byte(r->node), "fuse: the consumer reads or writes '%s' at %s, not at its "
                          "element '%s'", r->array, kr_nest_form_text(cn, &r->index, cx->arena), ax->name);
  }
  for (size_t i = 0; i < cn->refs.len; i++) {
    const KrNestRef *r = &cn->refs.data[i];
    const KrParam *pp = param_named(cx->kernel, r->array), *cp = param_named(f->ck, r->array);
    if (!pp) return kr_pass_skip(cx, ts_node_start_byte(r->node), "fuse: the producer has no parameter '%s'", r->array);
    if (why_not_same(cx, pp, cp, r->write))
      return kr_pass_skip(cx, ts_node_start_byte(r->node), "%s", why_not_same(cx, pp, cp, r->write));
  }
  for (size_t i = 0; i < cn->refs.len && !f->array; i++)
    if (!cn->refs.data[i].write && writes(pn, cn->refs.data[i].array)) f->array = cn->refs.data[i].array;
  if (!f->array) return kr_pass_skip(cx, cat, "fuse: the consumer '%s' reads nothing the producer '%s' stores", name, cx->kernel->name);
  for (size_t i = 0; i < pn->refs.len; i++) {
    const KrNestRef *r = &pn->refs.data[i];
    if (strcmp(r->array, f->array) == 0 && r->write) {
      if (f->store) return kr_pass_skip(cx, ts_node_start_byte(r->node), "fuse: the producer stores '%s' more than once", f->array);
      f->store = r;
    } else if (!r->write && writes(cn, r->array)) {
      return kr_pass_skip(cx, ts_node_start_byte(r->node), "fuse: the producer reads '%s', which the consumer writes", r->array);
    }
  }
  if (f->store->in_loop) return kr_pass_skip(cx, ts_node_start_byte(f->store->node), "fuse: the producer stores '%s' inside its loop", f->array);
  for (size_t i = 0; i < cn->refs.len; i++) {
    const KrNestRef *r = &cn->refs.data[i];
    if (!r->write && strcmp(r->array, f->array) != 0 && writes(pn, r->array))
      return kr_pass_skip(cx, ts_node_start_byte(r->node), "fuse: the consumer reads '%s', which the producer also writes", r->array);
  }
  /* The store is a statement of its own (`t[e] = v;`), so that what follows it runs exactly when it does
   * (an unbraced `if (i < n) t[i] = v;` gets braces around the two). */
  TSNode asg = ts_node_parent(f->store->node);
  f->stmt = ts_node_parent(asg);
  if (ts_node_symbol(asg) != cx->tree->sym.assignment_expression ||
      ts_node_symbol(f->stmt) != cx->tree->sym.expression_statement)
    return kr_pass_skip(cx, ts_node_start_byte(f->store->node), "fuse: the store of '%s' is not a statement of its own "
                        "('%s[…] = …;')", f->array, f->array);
  return KR_OK;
}

static KrStatus check(KrPassCtx *cx) {
  Fusion f;
  return plan(cx, &f);
}

/* The consumer's statement `st` with its index replaced by `(value)`; NULL (and *bad the name) when it
 * uses a local besides its index or a parameter the producer does not have. */
static const char *substituted(KrPassCtx *cx, const Fusion *f, TSNode st, const char *value, const char **bad) {
  const KrTree *t = cx->tree;
  const char *axis = f->cn->axes.data[0].name;
  uint32_t start = ts_node_start_byte(st), end = ts_node_end_byte(st), from = start;
  KrBuf b = {0};
  KrVec(TSNode) stack = {0};
  KrVec(TSNode) ids = {0};
  kr_vec_push(cx->arena, &stack, st);
  while (stack.len) {
    TSNode x = stack.data[--stack.len];
    if (ts_node_symbol(x) == t->sym.identifier) kr_vec_push(cx->arena, &ids, x);
    for (uint32_t c = ts_node_child_count(x); c-- > 0;) kr_vec_push(cx->arena, &stack, ts_node_child(x, c));
  }
  for (size_t i = 0; i < ids.len; i++) {   /* in source order: the stack visits children first to last */
    TSNode id = ids.data[i];
    const char *name = kr_node_text(t, id, cx->arena);
    KrBinding bind = kr_resolve(t, f->ck, id);
    if (bind.kind == KR_BIND_LOCAL && strcmp(name, axis) == 0) {
      kr_buf_append(&b, t->src->text + from, ts_node_start_byte(id) - from);
      kr_buf_printf(&b, "(%s)", value);
      from = ts_node_end_byte(id);
    } else if (bind.kind == KR_BIND_PARAM &&
               (!param_named(cx->kernel, name) ||
                why_not_same(cx, param_named(cx->kernel, name), param_named(f->ck, name), false))) {
      kr_buf_free(&b);
      *bad = name;
      return NULL;
    } else if (bind.kind == KR_BIND_LOCAL) {   /* a local of the consumer's other than its index */
      kr_buf_free(&b);
      *bad = name;
      return NULL;
    }
  }
  kr_buf_append(&b, t->src->text + from, end - from);
  const char *r = kr_arena_strdup(cx->arena, b.data);
  kr_buf_free(&b);
  return r;
}

static KrStatus apply(KrPassCtx *cx) {
  Fusion f;
  KrStatus s = plan(cx, &f);
  if (s != KR_OK) return s;
  const char *index = kr_pass_text(cx, ts_node_named_child(ts_node_child_by_field_name(f.store->node, "indices", 7), 0));
  bool block = ts_node_symbol(ts_node_parent(f.stmt)) == cx->tree->sym.compound_statement;
  const char *indent = kr_pass_indent_at(cx, ts_node_start_byte(f.stmt));
  if (!block) indent = kr_arena_printf(cx->arena, "%s%s", kr_pass_indent_at(cx, ts_node_start_byte(ts_node_parent(f.stmt))), "  ");
  KrBuf b = {0};
  for (size_t i = 0; i < f.cn->epilogue.len; i++) {
    const char *bad = NULL, *text = substituted(cx, &f, f.cn->epilogue.data[i], index, &bad);
    if (!text) {
      kr_buf_free(&b);
      return kr_pass_skip(cx, ts_node_start_byte(f.cn->epilogue.data[i]), "fuse: the consumer's statement uses '%s', "
                          "a local of its own or a name the producer '%s' does not have (of that type)", bad,
                          cx->kernel->name);
    }
    kr_buf_printf(&b, "\n%s%s", indent, text);
  }
  const char *text = kr_arena_printf(cx->arena, "\n%s// krewrite fuse: %s, at the element just stored%s", indent, f.ck->name,
                                     b.data ? b.data : "");
  kr_buf_free(&b);
  if (block) {
    kr_pass_replace(cx, ts_node_end_byte(f.stmt), ts_node_end_byte(f.stmt), text);
  } else {   /* the store was the whole body of a condition or a loop: both now are, in braces */
    const char *outer = kr_pass_indent_at(cx, ts_node_start_byte(ts_node_parent(f.stmt)));
    TSNode prev = ts_node_prev_sibling(f.stmt);   /* the condition's `)`, or `else` */
    uint32_t from = ts_node_is_null(prev) ? ts_node_start_byte(f.stmt) : ts_node_end_byte(prev);
    kr_pass_replace(cx, from, ts_node_end_byte(f.stmt),
                    kr_arena_printf(cx->arena, " {\n%s%s%s\n%s}", indent, kr_pass_text(cx, f.stmt), text, outer));
  }
  cx->launch.drops = f.ck->name;
  kr_pass_assume(cx, "fuse: the parameters of '%s' are the buffers and values of the parameters of '%s' of the same "
                     "names, and each launch of '%s' follows one of '%s' and covers exactly the elements of '%s' it stores",
                 f.ck->name, cx->kernel->name, f.ck->name, cx->kernel->name, f.array);
  return KR_OK;
}

static const KrParamSpec params[] = {
  {.name = "consumer", .type = KR_PARAM_STRING, .def = "",
   .doc = "the elementwise kernel to compute in this kernel's epilogue (its launches are dropped)"},
};

const KrPass kr_pass_fuse = {
  .name = "fuse",
  .summary = "an elementwise consumer kernel computed in its producer's epilogue, its launches dropped",
  .doc = "Appends the statements of an elementwise kernel (one index, references at that index only, such as a ReLU, a "
         "bias or a scale) after the statement where this kernel stores the array it reads, at the element just stored, "
         "and drops the consumer's launches from the program: the array is stored once instead of stored, loaded and "
         "stored again. Refuses consumers with loops, offsets, several indices, guards beyond the index's bound, locals, "
         "or parameters the producer lacks, and producers that store the array more than once, inside their loop, or "
         "read what the consumer writes.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .before_schedule = true,
  .check = check,
  .apply = apply,
};
