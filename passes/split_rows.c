/* passes/split_rows.c: a long row split over several blocks.
 * Before (after block_reduce, or its defaults): one block per row; with few rows (layernorm's 16
 * rows of 4,194,304 elements on 132 SMs) most of the GPU is idle.
 * After: each row over PARTS blocks. A block takes a ticket (an atomic counter) when it starts, and
 * the ticket names its row, its part and its stage: stage q < R (the row's R reductions in sequence,
 * after any online_softmax / welford fusion) walks its part of the row for reduction q, combines it
 * over the block and leaves the partial state in a workspace, then counts itself in; stage R (what
 * follows the last reduction: the normalising sweep, the stores) walks its part of the row. Before
 * the statements that read a reduction's result, a block waits until all PARTS partials arrived and
 * combines them in a fixed order (warp 0: lane l the parts l, l + 32, …, then a shuffle tree), so
 * every block of the row holds the same bits (not atomicAdd of floats). Tickets are ordered so
 * that stage q of row r comes after stage q - 1 of row r + 1: a block waits only for blocks that
 * took earlier tickets, so all of them have started and none waits on it, and the sweeps of a row
 * follow each other closely (the second finds the row in L2 when rows are a few MiB). The last
 * reader of a counter resets it and the last ticket resets the ticket counter, so the workspace is
 * back at zero when a launch ends.
 * The kernel gets one more parameter, the workspace (defaulted to nullptr); the launch change gives
 * its size, and grid = (rows + 2R) * (R + 1) * PARTS blocks (the few that name no row return).
 * Requires: a row nest (frontend/rows.h) with a guard (row < rows) whose bound the launch can
 * compute, or of one row (no row index: the one row over PARTS blocks, the workspace and the
 * tickets for one row), at most four reductions, no stores before the last one; the block layout.
 * With cluster = true, a row's PARTS blocks are one thread block cluster (__cluster_dims__(PARTS, 1, 1),
 * grid = rows * PARTS): each block runs every stage over its part, leaves each partial state in its
 * own shared memory, and after cluster.sync() combines the cluster's states in rank order from the
 * other blocks' shared memory (distributed shared memory); no workspace, no tickets, and the part
 * stays with one block from its first sweep to its last, so row_cache can keep it on chip (a row of
 * 65536 floats over 4 blocks is 64 KiB a block). A last cluster.sync() keeps every block until the
 * others have read it.
 * With resident = true, each block runs every stage over its part as in a cluster, but the row's
 * blocks meet in the workspace (tickets name row and part; each reduction's states combined in
 * order once all arrived), so any number of parts keeps a part with one block (row_cache after it);
 * the GPU must hold a row's blocks at once, and a row gets min(PARTS, cdiv(len, 16 * threads)) parts
 * (docs/passes.md, "split_rows with resident blocks").
 * Params: parts (2..1024; 2..16 with cluster), cluster (false), resident (false). Precision: exact (the
 * parts are combined in a fixed order). */
#include "passes/reduction.h"

static KrStatus check(KrPassCtx *cx) {
  if (kr_reduction_check(cx) != KR_OK) return KR_SKIP;
  KrSchedule probe = *cx->schedule;
  if (probe.layout == KR_LAYOUT_NONE) probe.layout = KR_LAYOUT_BLOCK, probe.threads = 256;
  KrSchedule *keep = cx->schedule;
  cx->schedule = &probe;
  const char *why = kr_reduction_split_why(cx);
  cx->schedule = keep;
  if (!why && kr_pass_arg(cx, "cluster")->i && kr_pass_arg(cx, "resident")->i)
    why = "cluster = true and resident = true are two ways for a row's blocks to meet: choose one";
  if (!why && kr_pass_arg(cx, "cluster")->i && kr_pass_arg(cx, "parts")->i > 16)
    why = kr_arena_printf(cx->arena, "a cluster has at most 16 blocks (sm_90's non-portable size), not %lld",
                          kr_pass_arg(cx, "parts")->i);
  return why ? kr_pass_skip(cx, kr_reduction_at(cx, cx->rows->at), "split_rows: %s", why) : KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  if (s->layout == KR_LAYOUT_NONE) s->layout = KR_LAYOUT_BLOCK, s->threads = 256, s->row_vector = true;   /* block_reduce's defaults */
  s->row_parts = (int)kr_pass_arg(cx, "parts")->i;
  s->row_cluster = kr_pass_arg(cx, "cluster")->i != 0;
  s->row_resident = kr_pass_arg(cx, "resident")->i != 0;
  return kr_reduction_emit(cx);
}

static const KrParamSpec params[] = {
  {.name = "parts", .type = KR_PARAM_INT, .def = "8", .min = 2, .max = 1024,
   .doc = "blocks per row, each walking a contiguous run of the row (whole warps' worth)"},
  {.name = "cluster", .type = KR_PARAM_BOOL, .def = "false",
   .doc = "the row's blocks as one thread block cluster (sm_90, parts <= 16; over 8 is a non-portable size, which "
          "krewrite's runs allow): partial states meet in distributed shared memory, no workspace or tickets, and "
          "every sweep of a part runs in one block, so row_cache can keep the part on chip"},
  {.name = "resident", .type = KR_PARAM_BOOL, .def = "false",
   .doc = "every block runs all of its part's sweeps, the row's blocks resident on the GPU together and meeting in "
          "the workspace (parts at most what the GPU holds at once; fewer for short rows, from the grid), so "
          "row_cache can keep a part on chip for any number of parts"},
};

const KrPass kr_pass_split_rows = {
  .name = "split_rows",
  .summary = "each row over PARTS blocks: partial results in a workspace, combined in a fixed order",
  .doc = "Regenerates a row-reduction kernel with each row over PARTS blocks: tickets taken at block start name a "
         "row, a part and a stage; reduction stages leave partial states in a workspace, later stages wait for all "
         "parts and combine them in a fixed order before running the row's statements and its final sweep. "
         "Adds a trailing workspace parameter (zeroed once; the kernel leaves it zeroed) whose size the launch change "
         "gives. Use with block_reduce (its layout) for rows too few to fill the GPU.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .assumptions = "a sum over a row may be reassociated: the parts are combined in a fixed order",
  .schedule = true,
  .reassociates = true,
  .rows = true,
  .check = check,
  .apply = apply,
};
