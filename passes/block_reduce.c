/* passes/block_reduce.c: a row reduction walked by a whole block per row.
 * Before: one thread walks a whole row (`for (j = 0; j < cols; j++) sum += x[row*cols + j];`), or a
 * block strides over it and reduces through a shared-memory tree with a barrier per level.
 * After: one block of THREADS threads per row; every row loop is strided over the block with
 * per-thread partial accumulators, combined by a warp shuffle tree and one shared-memory step (every
 * thread combines the warps' values in the same fixed order, so all hold the same bits); statements
 * of the row run in every thread, its stores in one. When the original's threads already read
 * consecutive addresses across rows (a column sum, Aᵀx), the layout is 32 rows per block on
 * threadIdx.x with each row's elements over THREADS / 32 threads on threadIdx.y instead, so the
 * loads stay coalesced (layout "auto"; "row" or "column" to choose).
 * Requires: the kernel lifts into a row nest (frontend/rows.h); a thread-per-row original needs its
 * guard (row < rows) to size the new grid. A kernel of one row (no row index) gets one block; one
 * of one element a thread keeps its grid and takes the original's gridDim.x and blockDim.x as
 * trailing ints (its rows are the original's blocks).
 * Params: threads (32..1024, a multiple of 32), layout. Precision: exact (a sum is reassociated; the
 * verifier's fp32 tolerance holds it). */
#include "passes/reduction.h"

#include <string.h>

static KrStatus check(KrPassCtx *cx) {
  if (kr_reduction_check(cx) != KR_OK) return KR_SKIP;
  long long t = kr_pass_arg(cx, "threads")->i;
  if (t % 32) return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "block_reduce: threads = %lld is not a "
                                  "multiple of 32 (whole warps)", t);
  const char *lay = kr_pass_arg(cx, "layout")->s;
  if (!strcmp(lay, "column") && cx->rows->map != KR_ROWS_THREAD)
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "block_reduce: the column layout needs a "
                        "thread-per-row original");
  if (!strcmp(lay, "column") && (t < 64))
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "block_reduce: the column layout needs at least 64 "
                        "threads (32 rows times 2 or more threads per row)");
  return KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  const char *lay = kr_pass_arg(cx, "layout")->s;
  s->threads = (int)kr_pass_arg(cx, "threads")->i;
  s->row_vector = kr_pass_arg(cx, "vector")->i != 0;
  s->row_stream = kr_pass_arg(cx, "stream")->i != 0;
  s->layout = !strcmp(lay, "row") ? KR_LAYOUT_BLOCK : !strcmp(lay, "column") ? KR_LAYOUT_COLUMN
                                                                                : kr_reduction_layout(cx->rows, cx->nest_tree);
  if (s->layout == KR_LAYOUT_COLUMN && s->threads < 64) s->layout = KR_LAYOUT_BLOCK;
  return kr_reduction_emit(cx);
}

static const KrParamSpec params[] = {
  {.name = "threads", .type = KR_PARAM_INT, .def = "256", .min = 32, .max = KR_ROWS_MAX_THREADS,
   .doc = "threads per block (a multiple of 32): the row's threads, or 32 rows times THREADS/32 in the column layout"},
  {.name = "layout", .type = KR_PARAM_STRING, .def = "auto", .choices = "auto|row|column",
   .doc = "row: a block per row; column: 32 rows per block on threadIdx.x, the row over threadIdx.y (for reads that "
          "are contiguous across rows); auto: column exactly when the original's reads are"},
  {.name = "vector", .type = KR_PARAM_BOOL, .def = "true",
   .doc = "row loops walk 16 bytes of each contiguous access a step (loads and stores of 16-byte words) when the "
          "row's accesses are 16-byte aligned, checked at run time per row; false: one element at a time"},
  {.name = "stream", .type = KR_PARAM_BOOL, .def = "false",
   .doc = "the 16-byte steps' loads and stores of the row's own elements (an index that names the row) with the "
          "streaming cache hint (__ldcs, __stcs: evict first), so that what every row reads (a weight vector) stays "
          "in L2 while the rows stream past"},
};

const KrPass kr_pass_block_reduce = {
  .name = "block_reduce",
  .summary = "a row reduction walked by a block per row: strided loop, warp shuffles, one shared-memory step",
  .doc = "Regenerates a row-reduction kernel (one thread per row, or a block per row through a shared-memory tree) "
         "with one block of THREADS threads per row: each row loop strided over the block with per-thread partials, "
         "combined by warp shuffles and one shared-memory step in a fixed order, the result in every thread; stores "
         "of the row's results by one thread. Reads contiguous across rows get 32 rows per block instead (layout). "
         "Launch: grid = the row count (or cdiv(rows, 32)), block = THREADS.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .assumptions = "a sum over a row may be reassociated",
  .schedule = true,
  .reassociates = true,
  .rows = true,
  .search = {
    .reason = "schedule %s's row reduction (a grid of block_reduce, warp_reduce and split_rows schedules)",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 10, [KR_SEARCH_COMPUTE] = 80, [KR_SEARCH_LATENCY] = 10},
    .role = KR_SEARCH_FAMILY,
    .grid = KR_GRID_ROWS,
  },
  .check = check,
  .apply = apply,
};
