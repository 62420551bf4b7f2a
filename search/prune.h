/* search/prune.h: resource pruning of schedule candidates before they are verified or timed
 * (DESIGN.md, Search). A schedule idea of the built-in proposer branches into a grid of tile
 * sizes; timing them all would spend a GPU search's minutes on kernels that cannot be fast. So
 * every variant is first applied (for its schedule and launch) and compiled with nvcc (ptxas's
 * registers, spills and static shared memory, the same cached compile the verifier's compile
 * report uses), refused when it spills or breaks sm_90's limits, and ranked by a simple model;
 * only the best few go on.
 *
 * The model (kr_prune_score; higher is better) adds, for a block of T threads:
 *   2   when 128 <= T <= 256 (1 when 64 <= T <= 512),
 *   2   when two blocks fit on an SM by threads, registers (allocated per warp in units of 8
 *       registers a thread) and shared memory (227 KiB an SM),
 *   log2(TM*TN)/6          work per thread (64 outputs: 1),
 *   log2(BM*BN/(BM+BN))/6  reuse of each loaded element across the block tile (128 x 128: 1),
 *   0.5 when the k loop is pipelined (stages >= 2), and log2(BK)/20 for fewer barriers,
 *   4   for each fusion of a row reduction's loops (online_softmax, welford), and 8 for row_cache
 *       when its shared memory leaves two blocks an SM: a bytes model of the row sweeps alone, each
 *       reading the rows from memory once less, worth more than any choice of threads (the terms
 *       above add up to at most 4 for a row reduction). With the row kept, online_softmax counts
 *       -2 instead of 4: the row is read once either way, and its rescaled sum costs the write
 *       sweep an exponential that row_cache's derived value saves (the H200: softmax's cluster
 *       cache ran 0.634 ms alone, 0.796 ms with online_softmax). A row kept in more shared memory holds its
 *       SM alone, whose sweeps then no longer overlap another block's (the H200: softmax's rows of
 *       65536 kept in 192 KiB ran 14% slower than read twice), so it earns nothing;
 *  -8 * (1 - B / 132) for a row reduction whose launch has B < 132 blocks (the rows, their parts
 *       under split_rows, the rows over the warps of a block under warp_reduce): the idle SMs
 *       cost more than any fusion saves (layernorm's 16 rows: a block each ran 9x slower than
 *       split over 32 blocks each);
 *  the same for a contraction's block tiles when its outputs at the benchmark sizes (the original
 *       launch's threads, one an output) fill fewer than 132 tiles (B = outputs / (bm * bn), times
 *       split_k's parts): gemm_accum's 517 x 613 outputs in 128 x 128 tiles are 19 blocks, and the
 *       64 x 64 schedule (77 blocks) ran 1.2x faster on the H200.
 * A contraction on the tensor cores (tensor_core's record) is scored apart, as its blocks hold their
 * SM alone (a deep pipeline of large tiles in dynamic shared memory; the fastest measured runs one
 * block of 256 threads at 255 registers an SM): 4 for wgmma (2 for mma.sync, 0 for WMMA),
 * log2(BM*BN/(BM+BN)) for the block tile's reuse, log2 of wgmma's width (the block side it reads from
 * shared memory)/4 or, for mma.sync, of the warp tile's reuse/4, 0.5 a stage beyond the first up to 4,
 * log2(BK)/10, -log2(3) for 3xtf32 (three products a term), and the idle SMs' term above
 * (search/prune.c, tc_score, gives the sweeps these follow).
 * A row reduction's schedule (block_reduce, warp_reduce, split_rows) has no tiles: its score is
 * the threads' and blocks' terms and the fusions', so its grid is compiled and refused by the
 * same resource checks, the variants that read the rows least ranked first, ties kept in the
 * proposer's order.
 * Registers and shared memory only lower the score, so the score without them (the bound) is an
 * upper bound: variants are compiled best bound first and compiling stops as soon as no variant
 * left can beat the `keep`-th kept one; the result is what compiling all would give.
 *
 * Without nvcc the pruning is skipped: variants are ranked by the bound alone and the note says
 * so. The model knows nothing of the memory system beyond these terms; a variant it ranks low
 * may still be the fastest, which is why the search times several. */
#ifndef KR_PRUNE_H
#define KR_PRUNE_H

#include "backend/nvcc.h"
#include "recipes/recipe.h"

/* sm_90's limits a compiled kernel is held to. */
#define KR_PRUNE_MAX_REGISTERS 255          /* per thread */
#define KR_PRUNE_REGISTERS_PER_SM 65536     /* and per block */
#define KR_PRUNE_SHARED_PER_SM (227 * 1024)
#define KR_PRUNE_STATIC_SHARED (48 * 1024)  /* static shared memory per block */
#define KR_PRUNE_THREADS_PER_SM 2048
#define KR_PRUNE_SMS 132                    /* the H200's SMs */

typedef enum {
  KR_PRUNE_KEPT,           /* fits, and among the best `keep` by the model */
  KR_PRUNE_REFUSED,        /* spills, breaks a limit, or nvcc refused it */
  KR_PRUNE_RANKED_OUT,     /* fits, but the model ranks `keep` others above it */
  KR_PRUNE_NOT_COMPILED,   /* its bound is below the `keep`-th kept score: never compiled */
  KR_PRUNE_NOT_APPLIED,    /* its recipe does not apply (the proposer checked it; a bug) */
} KrPruneVerdict;

typedef enum { KR_PRUNE_SIMT, KR_PRUNE_WMMA, KR_PRUNE_MMA, KR_PRUNE_WGMMA } KrPruneMma;

/* The shape of a schedule, from the apply record of its last schedule pass. */
typedef struct KrPruneShape {
  int bm, bn, bk, tm, tn, stages;   /* a contraction's; 0 for a row reduction */
  bool rows;               /* a row reduction's schedule (block_reduce, warp_reduce, ...) */
  double fused;            /* of a row reduction, the sweeps over memory it saves: online_softmax and
                            * welford 1 each; row_cache 2 when it leaves two blocks an SM, and then
                            * online_softmax -0.5 (the row is read once either way, and online's
                            * rescaled sum costs the write sweep an exponential that row_cache's
                            * derived value saves) */
  bool warp;               /* a row reduction: a warp per row */
  bool column;             /* a row reduction in the column layout: 32 rows a block */
  bool strided;            /* a row reduction whose layout reads memory strided: a block or a warp a row
                            * where the reads are contiguous across rows, or the column layout where
                            * they are contiguous along the row */
  int parts;               /* split_rows: blocks per row; a contraction's split_k: blocks per output tile
                            * (0: not split) */
  KrPruneMma mma;          /* a contraction's products on the tensor cores, by which API (0: SIMT) */
  int wm, wn;              /* the tensor cores' warp tile (wgmma: the block's rows or columns by 16) */
  int products;            /* tensor-core products a term: 3 for 3xtf32 (value and residual), else 1 */
  int dyn_shared;          /* dynamic shared memory per block (row_cache's; a contraction's tiles beyond 48 KiB), bytes */
  double grid_rows;        /* a row reduction's rows at the benchmark sizes (KrPruneOptions.rows) */
  double grid_outputs;     /* a contraction's outputs at the benchmark sizes (KrPruneOptions.outputs) */
  int threads;             /* per block, from the launch change */
} KrPruneShape;

/* The shape of a schedule record's JSON (KrPassRecord.schedule_json) and its launch's block
 * ("dim3(x, y, z)", or NULL); false when the JSON does not parse. */
bool kr_prune_shape_json(const char *schedule_json, const char *block, KrPruneShape *s);

typedef struct KrPruneCand {
  const char *label, *recipe;        /* in */
  KrPruneVerdict verdict;            /* out, and everything below */
  const char *why;                   /* one line: why it was refused or ranked where it was */
  bool shaped, compiled;
  KrPruneShape shape;
  KrKernelResources res;             /* when compiled: the kernel's ptxas report */
  double bound, score;               /* score: NaN until compiled (or the bound without nvcc); may be negative */
  int rank;                          /* 1-based among the fitting ones by score; 0: none */
  double apply_s;                    /* seconds its recipe took to apply */
  /* With KrPruneOptions.keep_runs, a kept candidate's run (its document kept), which the caller
   * frees with kr_recipe_run_free; NULL for every other candidate. */
  KrRecipeRun *run;
} KrPruneCand;

typedef struct KrPruneOptions {
  const char *source_path, *source_text;
  size_t source_len;
  const KrBuildFlags *build;   /* the source's folder, include folders and defines; NULL: none */
  const char *kernel;      /* plain name of the kernel the schedule rewrites */
  const char *arch;        /* NULL: sm_90 */
  int jobs;                /* nvcc runs at once (child processes); <= 1: one at a time */
  size_t keep;             /* how many to keep */
  double deadline;         /* kr_now_s() time after which no compile starts; <= 0: none */
  double rows;             /* a row reduction's rows at the benchmark sizes; <= 0: unknown */
  bool across;             /* a row reduction whose reads are contiguous across rows (KrIdea.across) */
  double outputs;          /* a contraction's outputs at the benchmark sizes; <= 0: unknown */
  bool keep_runs;          /* hand the kept candidates' runs back (KrPruneCand.run), so that they
                            * are not applied again */
} KrPruneOptions;

/* Why a kernel with these resources cannot run well at `threads` threads a block (0: unknown, not
 * checked) and `dyn_shared` bytes of dynamic shared memory (the launch's, which ptxas does not
 * report), or NULL when it fits: spills, more than 255 registers, threads * registers over 64K,
 * static shared memory over 48 KiB, static and dynamic shared memory over an SM's 227 KiB. */
const char *kr_prune_check(const KrKernelResources *r, int threads, int dyn_shared, KrArena *a);

/* The model's score of a shape; r NULL: the bound (registers and shared memory assumed to fit). */
double kr_prune_score(const KrPruneShape *s, const KrKernelResources *r);

/* Prunes and ranks c[0..n): fills every verdict; exactly min(keep, fitting) are KEPT. Afterwards
 * c is sorted: kept ones first, best first, then the rest in the order of their bound. *note is a
 * line for the log and run.json when the pruning could not use nvcc (NULL otherwise). */
void kr_prune_run(const KrPruneOptions *o, KrPruneCand *c, size_t n, KrArena *a, const char **note);

const char *kr_prune_verdict_name(KrPruneVerdict v);

/* A pass's refusal as the recipe layer reports it, "pass 'register_tile' does not apply to kernel
 * 'matmul': mm.cu (after pass 1, tile):7:1: 16 x 16 accumulators per thread would spill
 * registers", taken apart (strings from `a`); false when `msg` is not one. For the search's
 * messages (folder-private). */
typedef struct KrPassRefusal {
  const char *pass, *kernel, *where, *reason;
} KrPassRefusal;
bool kr__pass_refusal(const char *msg, KrArena *a, KrPassRefusal *out);

/* {"label": ..., "verdict": ..., "why": ..., "score": ..., "bound": ..., "rank": ...,
 *  "threads": ..., "resources": {"registers", "spill_stores", "spill_loads", "smem"} | null} */
void kr_prune_json(const KrPruneCand *c, KrBuf *out);

#endif
