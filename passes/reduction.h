/* passes/reduction.h: the reduction schedule passes' shared part: the checks of a row nest
 * (frontend/rows.h) against a schedule and the emitter that regenerates a row-reduction kernel
 * from its row nest and schedule (DESIGN.md, "Algorithm and schedule", the reductions family).
 *
 * The emitted kernel walks each row with many threads: a block per row (block_reduce), a warp per
 * row (warp_reduce), or, when the original's threads already read consecutive addresses across
 * rows (a column sum, Aᵀx), 32 rows per block on threadIdx.x with each row's elements spread over
 * threadIdx.y. Every row loop becomes a strided loop that keeps per-thread partial accumulators;
 * after it, the partials are combined by warp shuffles (a tree, then lane 0's value broadcast)
 * and, across the warps of a block, one shared-memory step in which every thread combines the
 * warps' values in the same fixed order, so all threads of a row hold the same bits. Statements
 * run once per row are run by every thread of the row; stores among them by one thread. A map
 * loop (stores that move with j) is spread over the same threads, followed by a barrier when a
 * later statement reads what it stored.
 *
 * online_softmax fuses a max loop and the following sum of exponentials of (value - max) into one
 * sweep with a rescaled running sum; welford fuses a sum, a mean computed from it and the sum of
 * squared deviations from that mean into one sweep (Welford per thread, Chan's combine). Both are
 * exact in the verifier's sense (reassociation and rescaling, within fp32 tolerance) for rows of
 * finite values; rows of zero elements keep the original's result (0 for sums, -inf for max). */
#ifndef KR_REDUCTION_H
#define KR_REDUCTION_H

#include "passes/pass.h"

#define KR_ROWS_MAX_THREADS 1024

/* The check every reduction pass starts with: the kernel lifted into a row nest and not
 * scheduled by the contraction passes. KR_SKIP with the reason otherwise. */
KrStatus kr_reduction_check(KrPassCtx *cx);

/* A place in the text the row nest was lifted from, as a place in the current text: itself on the
 * kernel's first schedule pass (the same text), else the kernel's start (the kernel was rewritten
 * since, so the lifted offsets name nothing there). */
uint32_t kr_reduction_at(const KrPassCtx *cx, uint32_t lifted_at);

/* The layout block_reduce picks for the nest: COLUMN when the row loops' reads are contiguous
 * across rows (threadIdx.x of the original steps through consecutive addresses), else BLOCK. */
KrRowsLayout kr_reduction_layout(const KrRows *r, const KrTree *t);

/* Why online_softmax / welford cannot fuse this nest's loops (NULL: they can), with the place. */
const char *kr_reduction_online_why(const KrRows *r, const KrTree *t, uint32_t *at, KrArena *a);
const char *kr_reduction_welford_why(const KrRows *r, const KrTree *t, uint32_t *at, KrArena *a);

/* Why split_rows cannot split this nest under its schedule so far (NULL: it can). */
const char *kr_reduction_split_why(KrPassCtx *cx);

/* Regenerates cx->kernel from cx->rows (lifted from cx->nest_tree) and cx->schedule: one edit
 * replacing the kernel's body, its __launch_bounds__, and the launch change. */
KrStatus kr_reduction_emit(KrPassCtx *cx);

#endif
