/* passes/double_buffer.c: the next k tiles' loads (cp.async) overlap this tile's math.
 * Before (after tile): load tile, barrier, math, barrier, for each k tile.
 * After: STAGES shared buffers; STAGES - 1 tiles are prefetched with __pipeline_memcpy_async; each
 * step starts the loads of tile kt + STAGES - 1, waits for tile kt (__pipeline_wait_prior), and
 * computes on it, so memory latency hides behind the math.
 * Requires: what tile requires, with staged operands; the STAGES buffers fit in sm_90's 227 KiB of
 * shared memory per block (dynamic shared memory past 48 KiB).
 * Params: stages (2..4). Precision: exact. */
#include "passes/pass.h"

static KrStatus check(KrPassCtx *cx) { return kr_schedule_check_contraction(cx); }

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  kr_schedule_defaults(s, cx->nest, cx->arena);
  s->stages = (int)kr_pass_arg(cx, "stages")->i;
  return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
}

static const KrParamSpec params[] = {
  {.name = "stages", .type = KR_PARAM_INT, .def = "2", .min = 2, .max = 4,
   .doc = "shared-memory buffers of the k loop, filled by cp.async"},
};

const KrPass kr_pass_double_buffer = {
  .name = "double_buffer",
  .summary = "cp.async multi-stage pipelining of the staged k tiles",
  .doc = "Regenerates the kernel from its nest with STAGES shared buffers per staged operand: the "
         "loads of the tiles ahead are issued with __pipeline_memcpy_async (zero-filled past the "
         "bounds) and waited for just before their math, overlapping memory and arithmetic.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .schedule = true,
  .search = {
    .reason = "overlap the next k tiles' loads of %s (cp.async) with this tile's math",
    .points = {{"stages=2", "{ stages = 2 }"}, {"stages=3", "{ stages = 3 }"}},
    .rank = {[KR_SEARCH_MEMORY] = 70, [KR_SEARCH_COMPUTE] = 40, [KR_SEARCH_LATENCY] = 70},
    .role = KR_SEARCH_IN_FAMILY,
  },
  .check = check,
  .apply = apply,
};
