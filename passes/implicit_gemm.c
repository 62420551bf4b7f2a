/* passes/implicit_gemm.c: a direct convolution (or any contraction whose update multiplies two
 * operands) computed as a GEMM over groups of its axes.
 * Before: one thread per output (n, k, p, q), looping over the window (c, r, s):
 *   for c, r, s: if (ih, iw inside the image) sum += x[n, c, ih, iw] * w[k, c, r, s];
 * After: the GEMM with m = (n, p, q), n = (k) and k = (c, r, s), each group's index the flattening of
 * its axes (the parallel axes the input reads, those the weights read, the reduction band): a block
 * computes a BM x BN tile of it, the k loop walks BK-wide slices of (c, r, s), and both operands'
 * slices are gathered into shared memory, each element's (n, p, q) and (c, r, s) recovered from its
 * tile coordinates by division, the input's zero padding as zero-filled loads where the update's
 * condition fails. Each thread then computes TM x TN outputs as an outer product in registers and
 * writes them through the kernel's own guard and epilogue (bias, activation).
 *   for each BK slice: x_tile[kk][mm] = cond ? x[…] : 0; w_tile[kk][nn] = w[…]; acc[i][j] += …
 * The schedule passes apply after it on this view: tile (block and k tile), register_tile,
 * tensor_core (tf32, fp16, bf16, 3xtf32 on the gathered tiles) and double_buffer.
 * Requires: a nest (frontend/nest.h) that tile does not take as it is (a band of reduction loops, a
 * flat index split into more than two axes, or an update under a condition) whose loop reads exactly two arrays, one changing with the
 * output's contiguous axis (the input) and the other with the remaining output axes (the weights),
 * no output axis read by both (groups, batches), reduction loops from 0; an update under a condition
 * is a sum whose condition the input's axes decide.
 * Under tensor_core's wgmma in tf32 or 3xtf32, the input's k tiles are loaded as patches of its rows
 * where its index is a row part plus a column q * stride + s * dilation (passes/schedule.c, "Row
 * patches"; checked per block at run time, the gather otherwise).
 * Params: block = {BM, BN} (default 64 x 64), k = BK (16), thread = {TM, TN} (default 4 x 4), table
 * (true), patch (true).
 * Precision: exact (the sum reassociated; a zero-filled term adds 0 * w, which assumes finite weights
 * where the padding's terms would be). */
#include "passes/pass.h"

static KrStatus check(KrPassCtx *cx) {
  KrSchedule probe = {.implicit = true};
  KrContraction c;
  const char *why;
  uint32_t at = ts_node_start_byte(cx->kernel->node);
  if (cx->schedule && cx->schedule->implicit) return KR_OK;   /* a second implicit_gemm re-tiles the view */
  if (kr_contraction_of(cx->nest, &c, &why, cx->arena))
    return kr_pass_skip(cx, at, "implicit_gemm: kernel '%s' is a plain contraction (one output axis per operand, one "
                                "reduction loop); tile schedules it", cx->kernel->name);
  if (!kr_schedule_roles(cx->nest, &probe, &c, &why, cx->arena)) return kr_pass_skip(cx, at, "implicit_gemm: %s", why);
  return KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  uint32_t at = ts_node_start_byte(cx->kernel->node);
  s->implicit = true;   /* check() let only a nest no other schedule takes, or one already viewed so, here */
  const KrValue *block = kr_pass_arg(cx, "block"), *k = kr_pass_arg(cx, "k"), *t = kr_pass_arg(cx, "thread");
  if (!s->bm) {
    kr_schedule_defaults(s, cx->nest, cx->arena);   /* the operands staged, padded, one stage */
    s->bm = s->bn = 64, s->bk = 16, s->tm = s->tn = 4;
  }
  if (block->ints.len == 2) s->bm = (int)block->ints.data[0], s->bn = (int)block->ints.data[1];
  else if (block->ints.len) return kr_pass_skip(cx, at, "implicit_gemm: block takes two sizes {BM, BN}, got %zu", block->ints.len);
  if (k->given) s->bk = (int)k->i;
  s->no_table = !kr_pass_arg(cx, "table")->i;
  s->no_patch = !kr_pass_arg(cx, "patch")->i;
  if (t->ints.len == 2) s->tm = (int)t->ints.data[0], s->tn = (int)t->ints.data[1];
  else if (t->ints.len) return kr_pass_skip(cx, at, "implicit_gemm: thread takes two sizes {TM, TN}, got %zu", t->ints.len);
  if (s->nstage != 2)
    return kr_pass_skip(cx, at, "implicit_gemm: both operands of the product must be staged; %d could be", s->nstage);
  kr_pass_assume(cx, "implicit_gemm: a term the update's condition skips is added as 0 * (the other factor), which is "
                     "0 when that factor is finite");
  return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
}

static const KrParamSpec params[] = {
  {.name = "block", .type = KR_PARAM_INTS, .def = "{}", .min = 1, .max = 1024,
   .doc = "the block tile {BM, BN} of the GEMM view: BM of its m (the output positions, e.g. n, p, q) by BN of its n (the "
          "output channels) (default 64 x 64)"},
  {.name = "k", .type = KR_PARAM_INT, .def = "16", .min = 1, .max = 256,
   .doc = "the k tile: elements of the flattened reduction (e.g. c, r, s) per step"},
  {.name = "thread", .type = KR_PARAM_INTS, .def = "{}", .min = 1, .max = 64,
   .doc = "outputs per thread {TM, TN} (default 4 x 4)"},
  {.name = "table", .type = KR_PARAM_BOOL, .def = "true",
   .doc = "precompute the k parts of the gathered indices (and of the padding test) per k tile in a shared-memory "
          "table, and each thread's row parts once; false: every element's axes recovered by division where it "
          "is loaded"},
  {.name = "patch", .type = KR_PARAM_BOOL, .def = "true",
   .doc = "under tensor_core's wgmma, load the gathered operand's k tiles as patches of its rows (the input rows a tile "
          "and a k tile touch, 16 bytes at a time) where the index allows it, checked at run time; false: always "
          "element by element"},
};

const KrPass kr_pass_implicit_gemm = {
  .name = "implicit_gemm",
  .summary = "a direct convolution as a GEMM over groups of its axes, gathered tiles in shared memory",
  .doc = "Views the nest as a GEMM: m the output axes the input reads (n, p, q), n those the weights read (k), k the "
         "reduction band (c, r, s), each flattened. Regenerates the kernel with BM x BN block tiles, BK slices of the "
         "flattened reduction gathered into shared memory (each element's axes recovered by division, the padding "
         "as zero-filled loads), and TM x TN outputs per thread. tile, register_tile, tensor_core and double_buffer "
         "apply afterwards on the same view; under tensor_core's wgmma (tf32, 3xtf32) the input's k tiles are loaded as "
         "whole image rows, 16 bytes at a time, where the index and the shapes allow it (patch). Refuses loops that "
         "read other than two arrays, output axes both operands read, and conditions the input's axes do not decide.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .schedule = true,
  .reassociates = true,
  .search = {
    .reason = "view %s's convolution as a GEMM (output positions by output channels, the window "
              "flattened as k): block tiles gathered into shared memory, several outputs per thread in registers",
    .points = {{"128x96,k=16,t=8x6", "{ block = {128, 96}, k = 16, thread = {8, 6} }"},
                {"128x64,k=16,t=8x4", "{ block = {128, 64}, k = 16, thread = {8, 4} }"},
                {"64x64,k=16,t=4x4", "{ block = {64, 64}, k = 16, thread = {4, 4} }"}},
    .rank = {[KR_SEARCH_MEMORY] = 40, [KR_SEARCH_COMPUTE] = 10, [KR_SEARCH_LATENCY] = 40},
  },
  .check = check,
  .apply = apply,
};
