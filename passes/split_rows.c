/* passes/split_rows.c: a long row split over several blocks.
 * Before (after block_reduce, or its defaults): one block per row; with few rows (layernorm's 16
 * rows of 4,194,304 elements on 132 SMs) most of the GPU is idle.
 * After: each row over PARTS blocks. A block takes a ticket (an atomic counter) when it starts, and
 * the ticket names its row, its part and its stage: stage q < R (the row's R reductions in sequence,
 * after any online_softmax / welford fusion) walks its part of the row for reduction q, combines it
 * over the block and leaves the partial state in a workspace, then counts itself in; stage R (what
 * follows the last reduction: the normalising sweep, the stores) walks its part of the row. Before
 * the statements that read a reduction's result, a block waits until all PARTS partials arrived and
 * combines them in the order 0..PARTS-1, so every block of the row holds the same bits (not
 * atomicAdd of floats). Tickets are ordered so that stage q of row r comes after stage q - 1 of row
 * r + 1: a block waits only for blocks that took earlier tickets, so all of them have started and
 * none waits on it, and the sweeps of a row follow each other closely (the second finds the row in
 * L2 when rows are a few MiB). The last reader of a counter resets it and the last ticket resets the
 * ticket counter, so the workspace is back at zero when a launch ends.
 * The kernel gets one more parameter, the workspace (defaulted to nullptr); the launch change gives
 * its size, and grid = (rows + 2R) * (R + 1) * PARTS blocks (the few that name no row return).
 * Requires: a row nest (frontend/rows.h) with a guard (row < rows) whose bound the launch can
 * compute, or of one row (no row index: the one row over PARTS blocks, the workspace and the
 * tickets for one row), at most four reductions, no stores before the last one; the block layout.
 * Params: parts (2..64). Precision: exact (the parts are combined in a fixed order). */
#include "passes/reduction.h"

static KrStatus check(KrPassCtx *cx) {
  if (kr_reduction_check(cx) != KR_OK) return KR_SKIP;
  KrSchedule probe = *cx->schedule;
  if (probe.layout == KR_LAYOUT_NONE) probe.layout = KR_LAYOUT_BLOCK, probe.threads = 256;
  KrSchedule *keep = cx->schedule;
  cx->schedule = &probe;
  const char *why = kr_reduction_split_why(cx);
  cx->schedule = keep;
  return why ? kr_pass_skip(cx, kr_reduction_at(cx, cx->rows->at), "split_rows: %s", why) : KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  if (s->layout == KR_LAYOUT_NONE) s->layout = KR_LAYOUT_BLOCK, s->threads = 256;
  s->row_parts = (int)kr_pass_arg(cx, "parts")->i;
  return kr_reduction_emit(cx);
}

static const KrParamSpec params[] = {
  {.name = "parts", .type = KR_PARAM_INT, .def = "8", .min = 2, .max = 64,
   .doc = "blocks per row, each walking a contiguous run of the row (whole warps' worth)"},
};

const KrPass kr_pass_split_rows = {
  .name = "split_rows",
  .summary = "each row over PARTS blocks: partial results in a workspace, combined in a fixed order",
  .doc = "Regenerates a row-reduction kernel with each row over PARTS blocks: tickets taken at block start name a "
         "row, a part and a stage; reduction stages leave partial states in a workspace, later stages wait for all "
         "parts and combine them in the order 0..PARTS-1 before running the row's statements and its final sweep. "
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
