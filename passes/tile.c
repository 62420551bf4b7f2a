/* passes/tile.c: block tiles of a contraction's output, with operands staged in shared memory.
 * Before: one thread per output, each walking a row of A and a column of B in global memory.
 *   for (int k = 0; k < K; k++) sum += A[row*K + k] * B[k*N + col];
 * After: a block computes a BM x BN tile of outputs; each k tile of BK is loaded cooperatively
 * into shared memory (A_tile[BK][BM + 4], B_tile[BK][BN + 4]), zero-filled outside the bounds,
 * then every thread reads its operands from there. The launch becomes a 1-D block of
 * (BM/TM)*(BN/TN) threads and a grid of cdiv(N, BN) x cdiv(M, BM) blocks.
 * Requires: the kernel lifts into a nest (frontend/nest.h) with two parallel axes and one
 * reduction; staged operands are read in the loop at one index that moves with k and with at
 * most one output axis; the tiles fit in sm_90's 227 KiB of shared memory per block (past 48 KiB,
 * static shared memory's limit, they are dynamic).
 * A nest without a reduction: a transpose's staged array goes through a padded BM x (BN + 1) tile,
 * loaded in its stored order and read in the output's. A stencil's (every read contiguous along the
 * output's contiguous axis, at constant offsets (dm, dn) from the output point) goes through a tile
 * of (BM + halo rows) x (BN + halo columns, rounded to 4 each side for 16-byte loads), loaded once
 * per block and guarded by the rows and columns the reads reach (from where each read is evaluated,
 * never below 0); the body runs per output with the staged reads taken from the tile. Refused: a
 * read offset that is not constant, a read at an offset under a condition over that axis the nest
 * cannot bound, tiles over 48 KiB. The halo loads assume the array holds the whole box of rows and
 * columns the reads reach (a 5-point stencil's corners are loaded though never read). One- and
 * three-dimensional stencils are not tiled (the tile takes two parallel axes).
 * Params: block = {BM, BN} (default 32 x 32; 32 x 64 for a stencil), k = BK, stage (operands;
 * default: all that can be; for a stencil, the arrays read at more than one offset), pad.
 * Precision: exact (the sum is reassociated only by how the k loop is split into tiles: none). */
#include "passes/pass.h"

static KrStatus check(KrPassCtx *cx) {
  KrContraction c;
  const char *why;
  if (!kr_schedule_roles(cx->nest, cx->schedule, &c, &why, cx->arena))
    return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "tile: %s", why);
  return KR_OK;
}

static KrStatus apply(KrPassCtx *cx) {
  KrSchedule *s = cx->schedule;
  kr_schedule_defaults(s, cx->nest, cx->arena);
  const KrValue *block = kr_pass_arg(cx, "block"), *k = kr_pass_arg(cx, "k"), *stage = kr_pass_arg(cx, "stage"),
                *pad = kr_pass_arg(cx, "pad");
  if (block->ints.len == 2) s->bm = (int)block->ints.data[0], s->bn = (int)block->ints.data[1];
  else if (block->ints.len) return kr_pass_skip(cx, ts_node_start_byte(cx->kernel->node), "tile: block takes two sizes {BM, BN}, got %zu", block->ints.len);
  s->bk = (int)k->i;
  s->pad = pad->i != 0;
  if (stage->given) {
    if (stage->names.len > KR_SCHED_MAX_STAGE) return kr_pass_skip(cx, 0, "tile: at most %d staged operands", KR_SCHED_MAX_STAGE);
    s->nstage = 0;
    for (size_t i = 0; i < stage->names.len; i++) s->stage[s->nstage++] = stage->names.data[i];
  }
  if (cx->nest->reduce < 0) {   /* data movement: no k tile, no thread tile */
    if (!block->given) s->bm = 32, s->bn = kr_movement_halo(cx->nest, s) ? 64 : 32;   /* a stencil: 64 along rows */
    return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
  }
  /* Under tensor_core, the warp tile decides the threads' share of the new block tile. */
  if (s->mma) {
    kr_schedule_mma_thread_tile(s, &s->tm, &s->tn);
    return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
  }
  /* A tile larger than a block of threads: the least thread tile that fits (register_tile sets
   * its own). */
  while ((s->bm / s->tm) * (s->bn / s->tn) > KR_SM90_MAX_THREADS && (s->tm < s->bm || s->tn < s->bn)) {
    if (s->tm <= s->tn && s->tm < s->bm) s->tm *= 2;
    else s->tn *= 2;
  }
  if (s->tm * s->tn > 1)
    kr_pass_assume(cx, "tile: %d x %d outputs per thread, so that the %d x %d tile fits in %d threads",
                   s->tm, s->tn, s->bm, s->bn, KR_SM90_MAX_THREADS);
  return kr_schedule_emit(cx, cx->nest, cx->nest_tree, s);
}

static const KrParamSpec params[] = {
  {.name = "block", .type = KR_PARAM_INTS, .def = "{32, 32}", .min = 1, .max = 1024,
   .doc = "the block tile {BM, BN}: outputs along the output's rows (m) and contiguous axis (n)"},
  {.name = "k", .type = KR_PARAM_INT, .def = "32", .min = 1, .max = 256, .doc = "the k tile BK"},
  {.name = "stage", .type = KR_PARAM_NAMES, .def = "{}",
   .doc = "operands to stage in shared memory (default: every operand the loop reads that a tile can stage)"},
  {.name = "pad", .type = KR_PARAM_BOOL, .def = "true", .doc = "pad shared rows by 4 elements against bank conflicts"},
};

const KrPass kr_pass_tile = {
  .name = "tile",
  .summary = "block tiles of the output, operands staged in shared memory",
  .doc = "Regenerates the kernel from its nest: each block computes a BM x BN tile of the output, "
         "loading each k tile of the staged operands cooperatively into shared memory (zero-filled "
         "past the bounds) before the threads read them. Changes the launch to a 1-D block and a "
         "2-D grid of tiles. Refuses kernels the nest cannot read, operands that cannot be staged, "
         "and tiles that do not fit.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .assumptions = "the launch covered the output with the kernel's guard (one thread per output)",
  .schedule = true,
  .search = {
    .reason = "stage the operands of %s's contraction in shared memory, one block per output tile, so "
              "each loaded element feeds a whole tile row or column",
    .points = {{"128x128,k=16", "{ block = {128, 128}, k = 16 }"},
                {"64x64,k=16", "{ block = {64, 64}, k = 16 }"},
                {"128x64,k=16", "{ block = {128, 64}, k = 16 }"}},
    .rank = {[KR_SEARCH_MEMORY] = 50, [KR_SEARCH_COMPUTE] = 20, [KR_SEARCH_LATENCY] = 50},
    .role = KR_SEARCH_FAMILY,
    .grid = KR_GRID_CONTRACTION,
  },
  .check = check,
  .apply = apply,
};
