/* passes/warp_reduce.c: a row reduction walked by one warp per row.
 * Before: one thread walks a whole row, or a block of 256 threads walks a short one.
 * After: one warp per row, THREADS / 32 rows per block; every row loop is strided over the warp's
 * 32 lanes, the partials combined by a shuffle tree and broadcast from lane 0 (no shared memory,
 * no block barrier); the row's stores by lane 0. For rows of tens to a few thousand elements
 * (matvec, CSR rows, norms of short rows), where a block per row leaves most threads idle.
 * Requires: the kernel lifts into a row nest (frontend/rows.h) whose row count is known: a guard
 * (row < rows), one row (no row index), or one element a thread (the rows are the original's
 * blocks: the kernel then takes the original launch's gridDim.x and blockDim.x as trailing ints).
 * Params: threads (32..1024, a multiple of 32). Precision: exact (a sum is reassociated). */
#include "passes/reduction.h"

static KrStatus check(KrPassCtx *cx) {
  if (kr_reduction_check(cx) != KR_OK) return KR_SKIP;
  long long t = kr_pass_arg(cx, "threads")->i;
  if (t % 32) return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "warp_reduce: threads = %lld is not a "
                                  "multiple of 32 (whole warps)", t);
  if (!cx->rows->guard && !cx->rows->single && !cx->rows->elements)
    return kr_pass_skip(cx, kr_reduction_at(cx, ts_node_start_byte(cx->rows->row_decl)), "warp_reduce: the row has no guard (row < rows) "
                        "to size the grid by");
  return KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  s->threads = (int)kr_pass_arg(cx, "threads")->i;
  s->row_vector = kr_pass_arg(cx, "vector")->i != 0;
  s->layout = KR_LAYOUT_WARP;
  return kr_reduction_emit(cx);
}

static const KrParamSpec params[] = {
  {.name = "threads", .type = KR_PARAM_INT, .def = "256", .min = 32, .max = KR_ROWS_MAX_THREADS,
   .doc = "threads per block (a multiple of 32): THREADS / 32 rows per block"},
  {.name = "vector", .type = KR_PARAM_BOOL, .def = "true",
   .doc = "row loops walk 16 bytes of each contiguous access a step (loads and stores of 16-byte words) when the "
          "row's accesses are 16-byte aligned, checked at run time per row; false: one element at a time"},
};

const KrPass kr_pass_warp_reduce = {
  .name = "warp_reduce",
  .summary = "a row reduction walked by a warp per row: strided loop, shuffle tree, lane 0 stores",
  .doc = "Regenerates a row-reduction kernel with one warp per row (THREADS / 32 rows per block): each row loop "
         "strided over the 32 lanes with per-lane partials, combined by a shuffle tree and broadcast, the row's stores "
         "by lane 0. Launch: grid = cdiv(rows, THREADS / 32), block = THREADS.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .assumptions = "a sum over a row may be reassociated",
  .schedule = true,
  .reassociates = true,
  .rows = true,
  .check = check,
  .apply = apply,
};
