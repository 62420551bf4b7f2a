/* passes/fuse.c: a consumer kernel computed in its producer's epilogue.
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
 * A consumer that reduces a window of the array by maximum (a max-pool, "Window consumers" below)
 * is reached the other way round: each element the producer stores is folded, by an atomic maximum,
 * into the outputs whose windows hold it, which the launch fills with all-ones bytes first (`fills`),
 * the consumer's parameters the producer lacks appended and passed from the consumer's launch
 * (`borrows`):
 *   conv2d:        ... t[(idx)] = fmaxf(t[(idx)], 0.0f);
 *                  kr_fuse_maxpool2d(t[(idx)], k + K * n, p, q, NK, P, Q, PO, QO, y);
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
 * A window consumer requires what plan_window checks (a float fmaxf maximum over loops from 0, started
 * at -INFINITY or the window's first element, stored as is; the producer's index the consumer's layout,
 * digit by digit) and assumes, recorded, that its launches read only elements the producer's launch
 * before them stores, each window inside the index's digits, and store every element of its output.
 * Params: consumer (the kernel to fuse); store (max-pools: false says the consumer alone reads the array,
 * recorded, and names the call kr_fuse_only_<consumer>, so that a schedule may leave the array unstored).
 * Precision: exact. */
#include <string.h>

#include "frontend/nest.h"
#include "passes/pass.h"
#include "passes/window.h"

/* The consumer, lifted, and what the rewrite needs of it. */
typedef struct Fusion {
  const KrKernel *ck;
  const KrNest *cn;
  const char *array;        /* the array the producer stores and the consumer reads */
  const KrNestRef *store;   /* the producer's store of it */
  TSNode stmt;              /* the producer's expression statement of the store */
  bool window;              /* a window consumer (a max-pool): the fields below */
  const KrNestRef *read;    /* its read of the array in the loop */
  const KrNestRef *out;     /* its store of its output */
  KrWindowDigit *digits;     /* the array's index as digits, outermost first */
  int ndigits;
  TSNode last;              /* the producer's last statement with the array */
  const char *borrows;      /* the consumer's parameters the producer lacks, "; "-separated */
} Fusion;

static KrStatus plan_window(KrPassCtx *cx, Fusion *f, const KrNest *pn);

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
  if (!pn) return kr_pass_skip(cx, cx->an.nest_at, "fuse: the producer '%s' is not a nest: %s", cx->kernel->name, why);
  KrDiags *d = kr_diags_new();
  f->cn = kr_nest_lift(cx->tree, f->ck, cx->arena, d);
  const char *cwhy = kr_arena_strdup(cx->arena, kr_diags_first_error(d) ? kr_diags_first_error(d) : "");
  kr_diags_free(d);
  const KrNest *cn = f->cn;
  if (!cn) return kr_pass_skip(cx, cat, "fuse: the consumer '%s' is not a nest: %s", name, cwhy);
  if (cn->reduce >= 0) {
    f->window = true;
    return plan_window(cx, f, pn);
  }
  if (!kr_pass_arg(cx, "store")->i)
    return kr_pass_skip(cx, cat, "fuse: store = false is for max-pool consumers; '%s' is elementwise", name);
  if (cn->axes.len != 1)
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

static KrStatus apply_window(KrPassCtx *cx, const Fusion *f);

static KrStatus apply(KrPassCtx *cx) {
  Fusion f;
  KrStatus s = plan(cx, &f);
  if (s != KR_OK) return s;
  if (f.window) return apply_window(cx, &f);
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

/* ---- Window consumers ----------------------------------------------------------------------------
 * A consumer that reduces a window of the producer's array by maximum (a max-pool): one output element
 * a thread, `m = fmaxf(m, t[R])` over its loops, `y[flat] = m` after them. Seen from an element the
 * producer stores, the outputs whose windows hold it are found digit by digit: the array's index,
 * read by both kernels, is split at the strides the consumer's index uses (products of symbols, the
 * outermost first: P * Q, Q, 1 for `(nk * P + 2 * po + i) * Q + 2 * qo + j`), the producer's part at
 * each stride is the digit's value (n * K + k, p, q for t[((n * K + k) * P + p) * Q + q]), and the
 * consumer's part (a parallel axis times c, plus a loop axis times d) is solved for it: for each value
 * of the loop, the axis is (digit - d * loop) / c where that divides. The producer computes each output
 * it reaches by an atomic maximum into the output, which the launch fills with all-ones bytes first. */

/* The consumer's read split into digits (f->digits), the producer's store form placed into them. */
static KrStatus window_digits(KrPassCtx *cx, Fusion *f, const KrNest *pn, const KrNestForm *w) {
  bool producer = false;
  const char *why = kr_window_split(f->cn, &f->read->index, f->array, pn, w, &f->digits, &f->ndigits, &producer, cx->arena);
  if (!why) return KR_OK;
  return kr_pass_skip(cx, ts_node_start_byte(producer ? f->store->node : f->read->node), "%s", why);
}

/* Whether an identifier under `n` is `name`. */
static bool names(KrPassCtx *cx, TSNode n, const char *name) {
  if (ts_node_symbol(n) == cx->tree->sym.identifier) return strcmp(kr_pass_text(cx, n), name) == 0;
  for (uint32_t i = 0; i < ts_node_child_count(n); i++)
    if (names(cx, ts_node_child(n, i), name)) return true;
  return false;
}

/* The rest of plan() for a consumer with loops. */
static KrStatus plan_window(KrPassCtx *cx, Fusion *f, const KrNest *pn) {
  const KrNest *cn = f->cn;
  const char *name = f->ck->name;
  uint32_t cat = ts_node_start_byte(f->ck->node);
  if (cn->op != KR_RED_MAX || !cn->acc || !cn->combine_fn || strcmp(cn->combine_fn, "fmaxf") != 0 ||
      !cn->acc_type || strcmp(cn->acc_type, "float") != 0)
    return kr_pass_skip(cx, cat, "fuse: the consumer '%s' has a loop but is not a float maximum (`m = fmaxf(m, t[…])`); "
                        "only elementwise consumers and max-pools fuse", name);
  if (!ts_node_is_null(cn->update_if))
    return kr_pass_skip(cx, ts_node_start_byte(cn->update_if), "fuse: the consumer's maximum is under a condition");
  if (cn->derived.len || cn->uniform.len || cn->loop_derived.len || cn->temps.len || cn->flats.len > 1)
    return kr_pass_skip(cx, cat, "fuse: the consumer '%s' declares locals besides its indices", name);
  for (size_t i = 0; i < cn->prologue.len; i++)
    if (!ts_node_eq(cn->prologue.data[i], cn->acc_decl))
      return kr_pass_skip(cx, ts_node_start_byte(cn->prologue.data[i]), "fuse: the consumer has statements before its loop");
  for (size_t a = (size_t)cn->reduce; a < (size_t)(cn->reduce + cn->nreduce); a++)
    if (!cn->axes.data[a].lo || strcmp(cn->axes.data[a].lo, "0") != 0)
      return kr_pass_skip(cx, cn->axes.data[a].at, "fuse: the consumer's loop '%s' does not start at 0", cn->axes.data[a].name);
  /* Its references: the window read in the loop, the first element of the window (or nothing) as the
   * maximum's start, and one store of the maximum after the loop. */
  const KrNestRef *init = NULL;
  for (size_t i = 0; i < cn->refs.len; i++) {
    const KrNestRef *r = &cn->refs.data[i];
    uint32_t at = ts_node_start_byte(r->node);
    if (r->write) {
      if (f->out) return kr_pass_skip(cx, at, "fuse: the consumer stores more than one element");
      f->out = r;
    } else if (r->in_loop) {
      if (f->read) return kr_pass_skip(cx, at, "fuse: the consumer reads more than one element in its loop");
      f->read = r;
    } else if (kr_node_within(r->node, cn->acc_decl) && !init) {
      init = r;
    } else {
      return kr_pass_skip(cx, at, "fuse: the consumer reads '%s' outside its window", r->array);
    }
  }
  if (!f->read || !f->out) return kr_pass_skip(cx, cat, "fuse: the consumer '%s' does not read a window into a store", name);
  f->array = f->read->array;
  if (!ts_node_eq(cn->update_value, f->read->node))
    return kr_pass_skip(cx, ts_node_start_byte(cn->update), "fuse: the consumer's maximum takes more than the element it reads");
  if (init) {
    KrNestForm first = {0};
    for (size_t i = 0; i < f->read->index.terms.len; i++)
      if (cn->axes.data[f->read->index.terms.data[i].var].kind != KR_AXIS_REDUCE)
        kr_vec_push(cx->arena, &first.terms, f->read->index.terms.data[i]);
    if (strcmp(init->array, f->array) != 0 || !kr_window_forms_equal(&first, &init->index) ||
        strcmp(cn->acc_init, kr_pass_text(cx, init->node)) != 0)
      return kr_pass_skip(cx, ts_node_start_byte(init->node), "fuse: the consumer's maximum starts at '%s', not the "
                          "window's first element", cn->acc_init);
  } else if (!cn->acc_init || strcmp(cn->acc_init, "-INFINITY") != 0) {
    return kr_pass_skip(cx, ts_node_start_byte(cn->acc_decl), "fuse: the consumer's maximum starts at '%s', neither "
                        "-INFINITY nor the window's first element", cn->acc_init ? cn->acc_init : "nothing");
  }
  if (cn->epilogue.len != 1 || strcmp(kr_pass_text(cx, cn->epilogue.data[0]),
                                      kr_arena_printf(cx->arena, "%s = %s;", kr_pass_text(cx, f->out->node), cn->acc)) != 0)
    return kr_pass_skip(cx, ts_node_start_byte(f->out->node), "fuse: the consumer does more after its loop than store "
                        "its maximum ('%s[…] = %s;')", f->out->array, cn->acc);
  if (strcmp(f->out->array, f->array) == 0)
    return kr_pass_skip(cx, ts_node_start_byte(f->out->node), "fuse: the consumer stores into the array it reads");
  /* The producer: stores the array outside its loop, every reference to it at one index, reads and
   * writes nothing of the consumer's output, and has the consumer's other parameters or lacks their names. */
  const KrNestRef *w = NULL;
  for (size_t i = 0; i < pn->refs.len; i++) {
    const KrNestRef *r = &pn->refs.data[i];
    uint32_t at = ts_node_start_byte(r->node);
    if (strcmp(r->array, f->out->array) == 0)
      return kr_pass_skip(cx, at, "fuse: the producer uses '%s', the consumer's output", r->array);
    if (strcmp(r->array, f->array) != 0) continue;
    if (r->in_loop) return kr_pass_skip(cx, at, "fuse: the producer uses '%s' inside its loop", f->array);
    if (w && !kr_window_forms_equal(&w->index, &r->index))
      return kr_pass_skip(cx, at, "fuse: the producer uses '%s' at two indices", f->array);
    if (r->write && !f->store) f->store = r;
    w = w ? w : r;
  }
  if (!f->store) return kr_pass_skip(cx, cat, "fuse: the consumer '%s' reads nothing the producer '%s' stores", name, cx->kernel->name);
  for (size_t i = 0; i < pn->epilogue.len; i++)
    for (size_t j = 0; j < pn->refs.len; j++)
      if (strcmp(pn->refs.data[j].array, f->array) == 0 && kr_node_within(pn->refs.data[j].node, pn->epilogue.data[i]))
        f->last = pn->epilogue.data[i];
  if (ts_node_is_null(f->last) || ts_node_symbol(ts_node_parent(f->last)) != cx->tree->sym.compound_statement)
    return kr_pass_skip(cx, ts_node_start_byte(f->store->node), "fuse: the producer's last use of '%s' is not a statement "
                        "of a block after its loop", f->array);
  KrBuf b = {0};
  for (size_t i = 0; i < f->ck->params.len; i++) {
    const KrParam *cp = &f->ck->params.data[i], *pp = param_named(cx->kernel, cp->name);
    if (strcmp(cp->name, f->array) == 0) {
      if (!pp || why_not_same(cx, pp, cp, false)) {
        kr_buf_free(&b);
        return kr_pass_skip(cx, cat, "fuse: '%s' is not the same array in both kernels", f->array);
      }
      continue;
    }
    if (pp) {
      const char *why = why_not_same(cx, pp, cp, strcmp(cp->name, f->out->array) == 0);
      if (why) {
        kr_buf_free(&b);
        return kr_pass_skip(cx, cat, "%s", why);
      }
      continue;
    }
    if (names(cx, cx->kernel->node, cp->name)) {
      kr_buf_free(&b);
      return kr_pass_skip(cx, cat, "fuse: the consumer's parameter '%s' would take a name the producer uses", cp->name);
    }
    kr_buf_printf(&b, "%s%s", b.len ? "; " : "", cp->name);
  }
  f->borrows = b.data ? kr_arena_strdup(cx->arena, b.data) : NULL;
  kr_buf_free(&b);
  return window_digits(cx, f, pn, &w->index);
}

static const char kAtomicMax[] =
    "// krewrite fuse: the atomic maximum of a float over all-ones bytes (a NaN): a number's bits order as ints when it\n"
    "// is not negative, in reverse as unsigned ints when it is, and all-ones is below both\n"
    "__device__ __forceinline__ void kr_atomic_max_f32(float *a, float v) {\n"
    "  if (!signbit(v)) atomicMax(reinterpret_cast<int *>(a), __float_as_int(v));\n"
    "  else atomicMin(reinterpret_cast<unsigned int *>(a), __float_as_uint(v));\n"
    "}\n\n";

static const char kFill[] =
    "// krewrite fuse: fills a buffer of n elements of `size` bytes with all-ones bytes before the fused kernel's launch\n"
    "// (its launch change's fills), an element a thread (a 4-byte element in one store)\n"
    "__global__ void " KR_FILL_KERNEL "(unsigned char *p, long long n, int size) {\n"
    "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {\n"
    "    if (size == 4) reinterpret_cast<unsigned int *>(p)[i] = 0xffffffffu;\n"
    "    else for (int b = 0; b < size; b++) p[i * size + b] = 0xff;\n"
    "  }\n"
    "}\n\n";

static KrStatus apply_window(KrPassCtx *cx, const Fusion *f) {
  const char *why;
  const KrNest *cn = f->cn, *pn = kr_pass_nest(cx, &why);
  bool store = kr_pass_arg(cx, "store")->i != 0;
  const char *fn = kr_arena_printf(cx->arena, "%s%s", store ? KR_FUSE : KR_FUSE_ONLY, f->ck->name);
  KrBuf b = {0};
  const char *text = cx->src->text;
  if (!strstr(text, "kr_atomic_max_f32(")) kr_buf_puts(&b, kAtomicMax);
  if (!strstr(text, KR_FILL_KERNEL "(")) kr_buf_puts(&b, kFill);
  /* The device function: the outputs whose windows hold the element at digits kr_d0, kr_d1, … */
  kr_buf_printf(&b, "// krewrite fuse: the outputs of %s whose windows hold the element of %s at the digits kr_d0 (outermost), "
                    "kr_d1, … of its index, each folded into %s by an atomic maximum\n",
                f->ck->name, f->array, f->out->array);
  kr_buf_printf(&b, "__device__ __forceinline__ void %s(float kr_v", fn);
  for (int i = 0; i < f->ndigits; i++) kr_buf_printf(&b, ", int kr_d%d", i);
  for (size_t i = 0; i < f->ck->params.len; i++)
    if (strcmp(f->ck->params.data[i].name, f->array) != 0) kr_buf_printf(&b, ", %s", kr_pass_text(cx, f->ck->params.data[i].node));
  kr_buf_puts(&b, ") {\n  if (kr_v != kr_v) return;   // fmaxf passes over a NaN\n");
  int depth = 1;
  for (int i = 0; i < f->ndigits; i++) {
    const KrWindowDigit *d = &f->digits[i];
    const KrNestAxis *ax = &cn->axes.data[d->axis];
    const char *ind = kr_arena_printf(cx->arena, "%*s", 2 * depth, "");
    const char *rem = kr_arena_printf(cx->arena, "kr_d%d", i);
    if (d->loop >= 0) {
      const KrNestAxis *lx = &cn->axes.data[d->loop];
      kr_buf_printf(&b, "%sfor (int %s = %s; %s < %s; %s++) {\n", ind, lx->name, lx->lo, lx->name, lx->hi, lx->name);
      ind = kr_arena_printf(cx->arena, "%*s", 2 * ++depth, "");
      rem = d->lcoef == 1 ? kr_arena_printf(cx->arena, "kr_d%d - %s", i, lx->name)
                          : kr_arena_printf(cx->arena, "kr_d%d - %lld * %s", i, d->lcoef, lx->name);
      kr_buf_printf(&b, "%sif (%s < 0%s) continue;\n", ind, rem,
                    d->coef == 1 ? "" : kr_arena_printf(cx->arena, " || (%s) %% %lld != 0", rem, d->coef));
    } else if (d->coef != 1) {
      kr_buf_printf(&b, "%sif (%s %% %lld != 0) return;\n", ind, rem, d->coef);
    }
    kr_buf_printf(&b, "%sconst int %s = %s;\n", ind, ax->name,
                  d->coef == 1 ? rem : kr_arena_printf(cx->arena, "(%s) / %lld", rem, d->coef));
  }
  const char *ind = kr_arena_printf(cx->arena, "%*s", 2 * depth, ""), *flat, *cond, *out;
  kr_window_output(cn, f->out, cx->arena, &flat, &cond, &out);
  if (*flat) kr_buf_printf(&b, "%s%s\n", ind, flat);
  kr_buf_printf(&b, "%s%skr_atomic_max_f32(&%s[%s], kr_v);\n", ind, *cond ? kr_arena_printf(cx->arena, "if (%s) ", cond) : "",
                f->out->array, out);
  while (depth > 1) kr_buf_printf(&b, "%*s}\n", 2 * --depth, "");
  kr_buf_puts(&b, "}\n\n");
  kr_pass_replace(cx, ts_node_start_byte(cx->kernel->node), ts_node_start_byte(cx->kernel->node), b.data);
  kr_buf_free(&b);
  /* The consumer's parameters the producer lacks, after its own. */
  if (f->borrows) {
    KrBuf pb = {0};
    for (size_t i = 0; i < f->ck->params.len; i++)
      if (!param_named(cx->kernel, f->ck->params.data[i].name))
        kr_buf_printf(&pb, ", %s", kr_pass_text(cx, f->ck->params.data[i].node));
    uint32_t end = ts_node_end_byte(cx->kernel->params.data[cx->kernel->params.len - 1].node);
    kr_pass_replace(cx, end, end, pb.data);
    kr_buf_free(&pb);
  }
  /* The call, after the producer's last statement with the array, with the element's value as stored. */
  const char *index = kr_pass_text(cx, ts_node_named_child(ts_node_child_by_field_name(f->store->node, "indices", 7), 0));
  KrBuf call = {0};
  kr_buf_printf(&call, "\n%s// krewrite fuse: %s, the outputs whose windows hold this element\n%s%s(%s[(%s)]",
                kr_pass_indent_at(cx, ts_node_start_byte(f->last)), f->ck->name, kr_pass_indent_at(cx, ts_node_start_byte(f->last)),
                fn, f->array, index);
  for (int i = 0; i < f->ndigits; i++)
    kr_buf_printf(&call, ", %s", f->digits[i].w.terms.len ? kr_nest_form_text(pn, &f->digits[i].w, cx->arena) : "0");
  for (size_t i = 0; i < f->ck->params.len; i++)
    if (strcmp(f->ck->params.data[i].name, f->array) != 0) kr_buf_printf(&call, ", %s", f->ck->params.data[i].name);
  kr_buf_puts(&call, ");");
  kr_pass_replace(cx, ts_node_end_byte(f->last), ts_node_end_byte(f->last), call.data);
  kr_buf_free(&call);
  cx->launch.drops = f->ck->name;
  cx->launch.borrows = f->borrows;
  cx->launch.fills = f->out->array;
  if (!store)
    kr_pass_assume(cx, "fuse: no launch but those of '%s' reads '%s', so a schedule of '%s' may leave it unstored",
                   f->ck->name, f->array, cx->kernel->name);
  kr_pass_assume(cx, "fuse: the parameters of '%s' that '%s' has are the same buffers and values, each launch of '%s' "
                     "follows one of '%s' and reads only elements of '%s' that launch stores, each window within the "
                     "index's digits (%s), and it stores every element of '%s'",
                 f->ck->name, cx->kernel->name, f->ck->name, cx->kernel->name, f->array,
                 kr_nest_form_text(cn, &f->read->index, cx->arena), f->out->array);
  return KR_OK;
}

static const KrParamSpec params[] = {
  {.name = "consumer", .type = KR_PARAM_STRING, .def = "",
   .doc = "the elementwise kernel, or the max-pool, to compute in this kernel's epilogue (its launches are dropped)"},
  {.name = "store", .type = KR_PARAM_BOOL, .def = "true",
   .doc = "max-pool consumers: false says the consumer alone reads the array (recorded), so that implicit_gemm's pooled "
          "epilogue may leave it unstored and apply the epilogue after the maximum"},
};

const KrPass kr_pass_fuse = {
  .name = "fuse",
  .summary = "an elementwise or max-pool consumer kernel computed in its producer's epilogue, its launches dropped",
  .doc = "Appends the statements of an elementwise kernel (one index, references at that index only, such as a ReLU, a "
         "bias or a scale) after the statement where this kernel stores the array it reads, at the element just stored, "
         "and drops the consumer's launches from the program: the array is stored once instead of stored, loaded and "
         "stored again. Refuses elementwise consumers with offsets, several indices, guards beyond the index's bound, "
         "locals, or parameters the producer lacks, and producers that store the array more than once, inside their "
         "loop, or read what the consumer writes. A max-pool consumer (a float fmaxf maximum over a window of the array) "
         "is computed from each element stored by atomic maxima into its output, which its launch fills first; refused "
         "for sums, conditions on the maximum, offsets, and a producer that stores the array in another layout.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .before_schedule = true,
  .check = check,
  .apply = apply,
};
