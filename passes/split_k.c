/* passes/split_k.c: a contraction's k range split over blocks, for outputs too small to fill the GPU.
 * Before (after tile): cdiv(N, BN) x cdiv(M, BM) blocks, each walking every k tile of its outputs;
 * a 512 x 512 output in 128 x 128 tiles is 16 blocks for 132 SMs.
 * After: a grid of cdiv(N, BN) x cdiv(M, BM) x PARTS blocks; block z walks the z-th run of whole k
 * tiles (runs as even as the count allows; empty when there are fewer tiles than parts), writes
 * its partial accumulators to a workspace and counts itself in with an atomic per tile; the last
 * block of a tile to arrive adds the parts up in the order z = 0, 1, …, PARTS - 1 (max and min
 * likewise), resets the counter to zero for the next launch and runs the kernel's own guard,
 * prologue and epilogue on the total. The order is fixed, so the result does not depend on which
 * block arrives last: the same bits on every run (not atomicAdd of floats).
 * The kernel gets one more parameter, a pointer to the workspace (defaulted to nullptr, so that
 * the host code's launches still compile), and the launch change says its size; the runtime
 * allocates it once, zeroed, and passes it to every launch. A launch with gridDim.z == 1 is the
 * unsplit kernel and never touches the workspace.
 * Requires: the kernel lifts into a contraction nest (two parallel axes, one reduction, frontend/
 * nest.h) whose accumulator type has a known size and that reads no blockIdx.z as a batch index
 * (KrNest.batch: the parts take grid.z); the tiles of tile (when it did not run, its
 * defaults with 2 x 2 outputs per thread).
 * Params: parts (2..64). Precision: exact (a sum is reassociated: the parts are added in a fixed
 * order, within the verifier's fp32 tolerance of the loop's order; max and min are unchanged). */
#include "passes/pass.h"

static KrStatus check(KrPassCtx *cx) {
  if (kr_schedule_check_contraction(cx) != KR_OK) return KR_SKIP;
  const KrNest *n = cx->nest;
  const char *why = kr_schedule_split_why(n, cx->arena);
  /* The place: the accumulator's declaration, or the update of a global one. */
  uint32_t at = ts_node_start_byte(n->acc ? n->acc_decl : n->update);
  return why ? kr_pass_skip(cx, at, "split_k: %s", why) : KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  if (s->bm == 0) {   /* no tile yet: tile's defaults, with 2 x 2 outputs per thread (256 threads), as a
                       * split grid has PARTS times the blocks, each with a PARTS-th of the work */
    kr_schedule_defaults(s, cx->nest, cx->arena);
    s->tm = s->tn = 2;
  }
  s->parts = (int)kr_pass_arg(cx, "parts")->i;
  return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
}

static const KrParamSpec params[] = {
  {.name = "parts", .type = KR_PARAM_INT, .def = "4", .min = 2, .max = KR_SCHED_MAX_PARTS,
   .doc = "blocks per output tile, each taking a run of the k tiles (grid.z of the launch)"},
};

const KrPass kr_pass_split_k = {
  .name = "split_k",
  .summary = "the k tiles split over PARTS blocks per output tile, combined exactly in a fixed order",
  .doc = "Regenerates the kernel from its nest with grid.z = PARTS: each block walks one run of whole "
         "k tiles and leaves its partial accumulators in a workspace; the last block of a tile to "
         "arrive (an atomic counter per tile) combines the parts in the fixed order 0..PARTS-1, resets "
         "the counter and runs the kernel's own epilogue. Adds a trailing workspace parameter whose "
         "size the launch change gives; it must be zeroed once when allocated. Refuses a nest without "
         "a reduction, an accumulator whose size is not known, and a kernel that reads blockIdx.z as a batch index "
         "(its parts would be the launch's grid.z).",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .assumptions = "a sum may be reassociated: the parts are added in a fixed order",
  .schedule = true,
  .reassociates = true,
  .search = {
    .reason = "split the k loop of %s over several blocks per output tile, whose partial results "
              "the last block of the tile combines in a fixed order: its output has fewer 128 x 128 "
              "tiles than the GPU has SMs and a long reduction",
    .points = {{"parts=4", "{ parts = 4 }"}, {"parts=8", "{ parts = 8 }"}, {"parts=2", "{ parts = 2 }"}},
    .rank = {[KR_SEARCH_MEMORY] = 90, [KR_SEARCH_COMPUTE] = 60, [KR_SEARCH_LATENCY] = 90},
    .role = KR_SEARCH_IN_FAMILY,
    .few_tiles = true,
  },
  .check = check,
  .apply = apply,
};
