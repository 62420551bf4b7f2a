/* passes/accumulate.c: keep a global accumulator in a register across the reduction loop.
 * Before: for (int k = 0; k < K; k++) C[i*N + j] += alpha * A[i*K + k] * B[k*N + j];
 * After:  float acc = 0;
 *         for (int k = 0; k < K; k++) acc += alpha * A[i*K + k] * B[k*N + j];
 *         C[i*N + j] += acc;
 * Each iteration then reads and writes a register instead of global memory (a load and a store
 * per multiply-add in the original, which the compiler may not remove because C might alias A or
 * B).
 * Requires: the kernel lifts into a nest (frontend/nest.h) whose accumulator is an element of a
 * global array, updated with += or -= and indexed without the loop counter; the loop is a
 * statement of a { } block.
 * Params: none. Precision: exact in the verifier's sense (the sum is reassociated: the old value
 * of C is added once, after the loop's terms). Assumes C is not also read through another pointer
 * inside the loop (the nest refuses reads of the accumulated array at other indices). */
#include "frontend/nest.h"
#include "passes/build.h"

static KrStatus check(KrPassCtx *cx) {
  const char *why;
  const KrNest *n = kr_pass_nest(cx, &why);
  uint32_t at = ts_node_start_byte(cx->kernel->node);
  if (!n) return kr_pass_skip(cx, cx->an.nest_at, "%s", why);
  if (n->reduce < 0 || n->acc_ref < 0)
    return kr_pass_skip(cx, at, "kernel '%s' has no accumulator in global memory%s", cx->kernel->name,
                        n->acc ? kr_arena_printf(cx->arena, " (its accumulator '%s' is a local already)", n->acc) : "");
  if (ts_node_symbol(ts_node_parent(n->loop)) != cx->tree->sym.compound_statement)
    return kr_pass_skip(cx, ts_node_start_byte(n->loop), "the reduction loop is not a statement of a { } block");
  return KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  const char *why;
  const KrNest *n = kr_pass_nest(cx, &why);
  const KrNestRef *r = &n->refs.data[n->acc_ref];
  const char *type = cx->kernel->params.data[r->param].base;
  KrNameSet taken = {0};
  const char *acc = kr_code_fresh(cx, &taken, "acc");
  const char *elem = kr_pass_text(cx, r->node);
  const char *decl = kr_arena_printf(cx->arena, "%s %s = (%s)0;", type, acc, type);
  kr_code_before(cx, n->loop, &decl, 1);
  kr_pass_replace_node(cx, r->node, acc);
  KrCode c;
  kr_code_at(&c, cx, ts_node_end_byte(n->loop));
  kr_code_newline(&c);
  kr_code_line(&c, "%s += %s;", elem, acc);
  kr_code_trim(&c);
  kr_code_replace(&c, ts_node_end_byte(n->loop), ts_node_end_byte(n->loop));
  kr_pass_assume(cx, "'%s' is not read or written through another pointer inside the loop",
                 r->array);
  return KR_OK;
}

const KrPass kr_pass_accumulate = {
  .name = "accumulate",
  .summary = "keep a global accumulator in a register across the reduction loop",
  .doc = "A reduction that adds into an element of a global array (C[i*N+j] += ...) inside its "
         "loop accumulates into a local instead, added to the element once after the loop. "
         "Refuses kernels whose accumulator is already a local, and kernels the nest cannot read.",
  .params = NULL,
  .nparams = 0,
  .precision = KR_PRECISION_EXACT,
  .search = {
    .reason = "accumulate %s's reduction in a register instead of in its output element in "
              "global memory",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 120, [KR_SEARCH_COMPUTE] = 120, [KR_SEARCH_LATENCY] = 120},
  },
  .check = check,
  .apply = apply,
};
