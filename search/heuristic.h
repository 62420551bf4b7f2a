/* search/heuristic.h: the built-in proposer of `krewrite optimize` (DESIGN.md, Search). Given a
 * problem's source, the kernels its spec launches, the recipe that seeds this round (the best of
 * the previous one, or nothing) and the kernel's arithmetic intensity, it offers ideas: one new
 * pass on one kernel, with a one-line reason and up to a few parameterisations, each a complete
 * recipe (the seed's lines plus one k:apply line, or a schedule grid's few lines, below). Only
 * passes that apply are offered: the seed recipe is applied once, keeping its document, and each
 * (pass, kernel, parameters) is first run through the driver (kr_doc_run_pass) on a copy of that
 * document, which carries the schedules the seed's schedule passes keep. What is tried comes from
 * the registry: each pass's search facts (KrPass.search, passes/pass.h) give its reason, its
 * parameterisations (the likeliest first) and its rank for each bottleneck, and the passes are
 * tried in the order of the ranks for the kernel's bottleneck; a pass without facts is never
 * offered on its own. The bottleneck is Nsight Compute's class when the seed was profiled
 * (latency-bound is known only from a profile), else the intensity against the H200's ridge
 * point. The schedule passes lead every order (a kernel is a contraction or a row reduction, not
 * both): the row reduction's first when memory-bound or latency-bound, the contraction's first
 * when compute-bound. The text passes follow, as the ranks stand: coalesce and accumulate, then
 * (memory-bound) restrict, ldg, vectorize, index_precompute, unroll; (compute-bound) unroll,
 * index_precompute, restrict, ldg, vectorize; (latency-bound) unroll, vectorize, ldg,
 * index_precompute, restrict; fast_math last, and only when lowering is allowed. split_k is offered
 * only where the output's tiles leave SMs idle and its reduction is long (`few_tiles`).
 * On a contraction whose seed has no schedule yet, `tile` is offered as one schedule grid
 * for sm_90 fp32: block tiles {128, 64} x {128, 64}, k tiles {16, 8, 32}, thread tiles {8, 4} x
 * {8, 4}, stages {2, 1, 3}, each point a whole schedule that the schedule checks accepted (those
 * refused are listed with the reason); register_tile and double_buffer alone are then offered only
 * on a seed that tiles the kernel already. On a row reduction (frontend/rows.h) whose seed has no
 * reduction pass yet, `block_reduce` is offered as one schedule grid: block_reduce threads {256,
 * 128, 512, 1024} in the layout kr_reduction_layout picks (and, for a thread-per-row original, the
 * other one after), warp_reduce threads {256, 128, 512}, and split_rows parts {2, 4, 8, 16, 32}
 * when that pass is registered (first when the rows at the benchmark sizes are fewer than 4 an SM,
 * else last); every schedule once followed by online_softmax and welford where both apply, once
 * by each that applies, once alone, in that order (the fused variants save a sweep over the rows,
 * and search/prune.h's model ranks them first). A warp per row leads each thread count for rows
 * shorter than 4096 elements (from the spec's sizes through the launch's arguments, or the spec's
 * work per thread when the loop's bound is read from memory), a block per row otherwise, and the
 * column layout (reads contiguous across rows) leads with warp_reduce after. The reason line names
 * the kernel's row form, its sizes and what each offered fusion fuses. online_softmax and welford
 * alone are offered only on a seed that has block_reduce, warp_reduce or split_rows on the kernel
 * already. The result depends only on the inputs: where
 * several kernels are candidates for the same pass, their order is shuffled with a PRNG seeded by
 * `seed`, so a given seed always gives the same ideas. */
#ifndef KR_HEURISTIC_H
#define KR_HEURISTIC_H

#include "recipes/recipe.h"
#include "runtime/spec.h"

/* One parameterisation of an idea: "width=4" and the complete recipe that applies it. */
typedef struct KrIdeaVariant {
  const char *label;       /* "width=4"; "defaults" when the pass's defaults are used */
  const char *params_lua;  /* "{ width = 4 }" */
  const char *recipe;      /* the seed recipe's text plus the new line(s) */
  const char *model;       /* set by the search: the pruning's verdict (JSON), or NULL */
  /* Set by the search: the recipe applied already to the source (by the pruning, or by the LLM
   * proposer's check), its document kept, and the seconds that took; the candidate is this run, not
   * a second apply. NULL: not applied yet. Owned by whoever holds the variant; freed with
   * kr_recipe_run_free. */
  KrRecipeRun *run;
  double run_s;
} KrIdeaVariant;

/* A point of a schedule grid that the schedule checks refused, and why. */
typedef struct KrIdeaRefusal {
  const char *label, *why;
} KrIdeaRefusal;

typedef struct KrIdea {
  const char *pass, *kernel;
  const char *reason;      /* one line, no newline */
  KrVec(KrIdeaVariant) variants;   /* at least one; in the order worth trying */
  /* A schedule grid (pass "tile" on a contraction: every variant is a whole schedule of tile,
   * register_tile and, for stages >= 2, double_buffer lines; pass "block_reduce" on a row
   * reduction: a block_reduce, warp_reduce or split_rows line and the fusions'), many more than
   * are worth timing; the search prunes them by resources and ranks them (search/prune.h). */
  bool grid;
  KrVec(KrIdeaRefusal) refused;    /* grid points the schedule checks refused */
  double rows;             /* a row reduction's grid: its rows at the benchmark sizes; 0: unknown */
  bool across;             /* a row reduction's grid: the rows' reads are contiguous across rows (the
                            * column layout coalesces them; a block or a warp a row strides) */
  double outputs;          /* a contraction's grid: its outputs at the benchmark sizes; 0: unknown */
} KrIdea;

typedef KrVec(KrIdea) KrIdeaList;

typedef struct KrHeuristicInput {
  const char *source_path;
  const char *source_text;
  size_t source_len;
  /* The text the row nest's facts are read from (RowsInfo: the row count, the layout): NULL, the
   * source; kr_heuristic_propose sets it to the source with the preparing passes applied
   * (KrSearchFacts.prepares) when the kernel does not lift without them. */
  const char *lift_text;
  size_t lift_len;
  const KrBuildFlags *build;    /* the source's defines (its #if groups); NULL: none */
  const char *const *kernels;   /* the kernels the spec launches (plain names) */
  size_t nkernels;
  const char *seed_recipe;      /* NULL or "": start from the original source */
  const KrRecipeRun *seed_run;   /* the seed recipe applied already, its document kept
                                 * (KrRecipeOptions.keep_doc); NULL: the proposer applies it */
  double intensity;             /* FLOP per byte at the benchmark sizes; < 0: unknown */
  const char *bound;            /* Nsight Compute's class ("compute-bound",
                                 * "memory-bandwidth-bound", "latency-bound") when the seed was
                                 * profiled; it decides the order instead of the intensity */
  bool allow_lowering;          /* offer fast_math (precision-lowering) too */
  double output_tiles;          /* kr_heuristic_output_tiles; split_k is offered below one per SM */
  double reduction_length;      /* kr_heuristic_reduction_length; and for long reductions only */
  const KrSpec *spec;            /* NULL: unknown; else a row reduction's row count and length at
                                 * the benchmark sizes order its grid (through the launch's args) */
  uint64_t seed;
  int round;                    /* 1-based; recorded in nothing but messages for now */
} KrHeuristicInput;

/* FLOP per byte of the spec at its benchmark sizes, from its `flops` and `bytes` expressions;
 * -1 when either is missing or does not evaluate (or bytes is 0). */
double kr_heuristic_intensity(const KrSpec *spec, KrArena *arena);

/* About how many 128 x 128 output tiles the spec's launches cover at the benchmark sizes: the
 * threads of its largest launch (one per output in a naive kernel) over 128 * 128; -1 when the
 * launch dimensions do not evaluate. */
double kr_heuristic_output_tiles(const KrSpec *spec, KrArena *arena);
/* About how long each output's reduction is at the benchmark sizes: the spec's flops over twice
 * the threads of its largest launch (a multiply-add per step); -1 when unknown. */
double kr_heuristic_reduction_length(const KrSpec *spec, KrArena *arena);

/* The ridge point of the machine (KR_CEIL_FLOPS_PER_S / KR_CEIL_BYTES_PER_S, about 12 FLOP per
 * byte): kernels above it are called compute-bound, below it (or unknown) memory-bound. */
bool kr_heuristic_compute_bound(double intensity);

/* The kernels a spec launches, as plain names ("tk<float, 128>" gives "tk"), each once, in
 * launch order; with a host entry point (the spec's `entry`), those launched in the host code the
 * entry runs (its body and the host functions it calls, as the kernels' build keeps them), read from
 * the source's text (`build`: its defines, or NULL). */
void kr_heuristic_kernels(const KrSpec *spec, const char *text, size_t len, const KrBuildFlags *build, KrArena *arena,
                          const char ***names, size_t *n);

/* Proposes ideas into *out (storage from `arena`). KR_ERR (with a diagnostic) only when the seed
 * recipe itself does not apply; no applicable pass gives KR_OK and an empty list. */
KrStatus kr_heuristic_propose(const KrHeuristicInput *in, KrArena *arena, KrIdeaList *out,
                              KrDiags *diags);

#endif
