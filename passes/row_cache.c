/* passes/row_cache.c: a row read by several sweeps kept on chip by the first.
 * Before (after block_reduce, and online_softmax where it applies): softmax reads each row twice, once
 * for its maximum and sum, once more to normalise; an RMS norm reads it for the sum of squares and
 * again to scale it. When a row is larger than what L2 keeps between the sweeps, the second read
 * goes to memory: a third more bytes than the floor.
 * After: the first sweep that loads the row by 16-byte steps keeps what it loads on chip: each
 * thread's first STEPS steps in registers (their indices known at compile time), the rest of the
 * row in dynamic shared memory (up to SHARED KiB), each thread's own elements where only it reads
 * them back, so no barrier is needed. A later sweep over the same range that loads the same
 * elements with the same steps takes them from there instead of from memory. Whether the row fits
 * (its steps within the registers' and the shared memory's share) and whether the later sweep's
 * steps begin and end where the first one's did (16-byte alignment of every access of the sweep,
 * checked at run time) is decided per row: otherwise the later sweep reads memory as before. The
 * elements before the first aligned one and after the last whole step are always read from memory.
 * When exactly two later sweeps take the kept float elements and the first computes a call of a float
 * math function of the element and of values that neither sweep nor anything between them changes
 * (softmax's `expf(x[j] - rowmax)`), which the second computes again and is the second's only use of
 * the element, the first sweep leaves the call's value in the cache in place of the element and the
 * second reads it: one evaluation per element instead of two, the same bits.
 * Requires: block_reduce's row layout with vector steps (vector = true), no split_rows but split_rows
 * over a cluster (which keeps each block's part); a sweep of
 * a row loop (not welford's batches) whose contiguous load a later loop over the same range loads
 * again, with no store into that array in between.
 * Params: steps (0..16), shared (KiB, 0..227). Launch: shmem = max(0, min(row length - STEPS * T *
 * V, SHARED elements)) * element size when the row length is an expression of the kernel's
 * parameters, else SHARED KiB. Precision: exact (the same values, read from elsewhere). */
#include "passes/reduction.h"

static KrStatus check(KrPassCtx *cx) {
  if (kr_reduction_check(cx) != KR_OK) return KR_SKIP;
  const KrSchedule *s = cx->schedule;
  if (s->layout != KR_LAYOUT_BLOCK)
    return kr_pass_skip(cx, kr_reduction_at(cx, cx->rows->at), "row_cache: it keeps the row of a block: apply block_reduce "
                        "(its row layout) first");
  if (s->row_parts > 1 && !s->row_cluster && !s->row_resident)
    return kr_pass_skip(cx, kr_reduction_at(cx, cx->rows->at), "row_cache: split_rows' stages run in different blocks "
                        "(split_rows with cluster = true or resident = true keeps a part's sweeps in one block)");
  long long steps = kr_pass_arg(cx, "steps")->i, shared = kr_pass_arg(cx, "shared")->i;
  if (steps == 0 && shared == 0)
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "row_cache: steps = 0 and shared = 0 keep nothing");
  return KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  s->row_cache = true;
  s->cache_steps = (int)kr_pass_arg(cx, "steps")->i;
  s->cache_shared = (int)kr_pass_arg(cx, "shared")->i;
  return kr_reduction_emit(cx);
}

static const KrParamSpec params[] = {
  {.name = "steps", .type = KR_PARAM_INT, .def = "4", .min = 0, .max = 16,
   .doc = "each thread's first STEPS 16-byte steps of the row kept in registers"},
  {.name = "shared", .type = KR_PARAM_INT, .def = "0", .min = 0, .max = 227,
   .doc = "KiB of dynamic shared memory for the rest of the row (more limits the blocks per SM)"},
};

const KrPass kr_pass_row_cache = {
  .name = "row_cache",
  .summary = "a row read by several sweeps kept on chip (registers, then shared memory) by the first",
  .doc = "After block_reduce (row layout, vector steps): the first sweep that loads a row by 16-byte steps keeps "
         "each thread's first STEPS steps in registers and the rest of the row in dynamic shared memory (up to "
         "SHARED KiB); a later sweep over the same range loading the same elements takes them from there when the "
         "row fits and its steps line up (checked per row at run time), else reads memory as before. Launch: shmem "
         "as the row needs, up to SHARED KiB.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .assumptions = "the kept array is not written through another pointer while its row is kept",
  .schedule = true,
  .reassociates = true,
  .rows = true,
  .check = check,
  .apply = apply,
};
