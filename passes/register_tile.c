/* passes/register_tile.c: several outputs per thread, as an outer product in registers.
 * Before (after tile): each thread computes one output of the block tile.
 * After: each thread computes TM x TN outputs: per kk it copies TM values of the m operand's tile
 * and TN of the n operand's into registers and updates acc[TM][TN], so each shared-memory read
 * feeds TN (or TM) multiply-adds instead of one.
 * Requires: what tile requires; TM divides BM and TN divides BN; at most 128 accumulators.
 * Params: thread = {TM, TN} (default: the thread tile that leaves 256 threads per block).
 * Precision: exact. */
#include "passes/pass.h"

static KrStatus check(KrPassCtx *cx) { return kr_schedule_check_contraction(cx); }

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  kr_schedule_defaults(s, cx->nest, cx->arena);
  if (s->mma)
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "register_tile: the schedule is on the tensor cores "
                        "(tensor_core): its warp tile sets what each thread computes");
  const KrValue *t = kr_pass_arg(cx, "thread");
  if (t->ints.len == 2) {
    s->tm = (int)t->ints.data[0], s->tn = (int)t->ints.data[1];
  } else if (t->ints.len == 0) {   /* 256 threads: a 16 x 16 grid of thread tiles */
    s->tm = s->bm >= 16 ? s->bm / 16 : 1;
    s->tn = s->bn >= 16 ? s->bn / 16 : 1;
  } else {
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "register_tile: thread takes two sizes {TM, TN}, got %zu", t->ints.len);
  }
  return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
}

static const KrParamSpec params[] = {
  {.name = "thread", .type = KR_PARAM_INTS, .def = "{}", .min = 1, .max = 64,
   .doc = "outputs per thread {TM, TN} (default: BM/16 x BN/16, 256 threads)"},
};

const KrPass kr_pass_register_tile = {
  .name = "register_tile",
  .summary = "TM x TN outputs per thread as an outer product in registers",
  .doc = "Regenerates the kernel from its nest with each thread computing TM x TN outputs of the "
         "block tile: operands are copied from the shared tiles into registers once per k step and "
         "combined as an outer product. Refuses a thread tile that does not divide the block tile "
         "or needs more than 128 accumulators.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .schedule = true,
  .search = {
    .reason = "compute several outputs per thread of %s as an outer product in registers, "
              "so each shared-memory read feeds several multiply-adds",
    .points = {{"8x8", "{ thread = {8, 8} }"}, {"4x4", "{ thread = {4, 4} }"}, {"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 60, [KR_SEARCH_COMPUTE] = 30, [KR_SEARCH_LATENCY] = 60},
    .role = KR_SEARCH_IN_FAMILY,
  },
  .check = check,
  .apply = apply,
};
