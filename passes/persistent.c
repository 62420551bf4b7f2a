/* passes/persistent.c: a contraction's blocks stay on the GPU and walk its m tiles.
 * Before (after tile): a block per m tile; each pays its own setup (the divisors' table of implicit_gemm,
 * the patch geometry, the pipeline's first loads) and the launch places every one.
 * After: the grid along m is at most the blocks the GPU holds at once (`sms`, the device's SMs, times the
 * blocks an SM holds by the schedule's threads, registers and shared memory); block b computes tiles
 * b, b + gridDim.y, ... with a barrier between tiles, the per-block setup before its first. Any grid is
 * right: the program's own launch (a block per tile) walks one tile a block.
 * Requires: a contraction schedule (tile or implicit_gemm first); not split_k, whose parts end in a block
 * that returns. Params: order (ascending: tile b first; descending: the last tiles first, so that the first
 * tiles are the last written and still in L2 for a kernel after it that reads the output from its start).
 * Precision: exact. */
#include <string.h>

#include "passes/pass.h"

static KrStatus check(KrPassCtx *cx) {
  KrStatus st = kr_schedule_check_contraction(cx);
  if (st != KR_OK) return st;
  if (!cx->schedule || cx->schedule->bm <= 0)   /* the block tile is what a block walks */
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "persistent: kernel '%s' has no block tile yet; tile "
                        "or implicit_gemm first", cx->kernel->name);
  return KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  s->persistent = true;
  s->persistent_down = strcmp(kr_pass_arg(cx, "order")->s, "descending") == 0;
  return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
}

static const KrParamSpec params[] = {
  {.name = "order", .type = KR_PARAM_STRING, .def = "ascending", .choices = "ascending|descending",
   .doc = "the order a block walks its tiles in: descending ends with the output's first tiles, which a kernel "
          "after it that reads the output from the start then finds in L2"},
};

const KrPass kr_pass_persistent = {
  .name = "persistent",
  .summary = "the blocks stay resident and walk the m tiles (grid capped at what the GPU holds)",
  .doc = "Regenerates the kernel from its nest with a loop over the m tiles around the block's work: the grid "
         "along m becomes min(tiles, sms x the blocks an SM holds), block b computing tiles b, b + gridDim.y, ... "
         "The per-block setup (implicit_gemm's divisors) runs once a block instead of once a tile, and no block "
         "waits for a launch slot. Where the tiles are few or a block is cheap to start it changes little.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .schedule = true,
  .search = {
    .reason = "keep %s's blocks resident, each walking several output tiles, so that a block's setup (divisors, "
              "tables, the pipeline's first loads) is paid once an SM instead of once a tile",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 100, [KR_SEARCH_COMPUTE] = 70, [KR_SEARCH_LATENCY] = 100},
  },
  .check = check,
  .apply = apply,
};
