/* runtime/bench.h: timing a candidate against the original on the GPU (`krewrite bench`), by the
 * rules of PERF.md: CUDA events around the launches only, warm-up, at least 50 repetitions and
 * 1 s, median/min/spread, the L2 flushed before each repetition, input sets rotated, original and
 * candidate interleaved in one process; both outputs checked against each other at the
 * benchmark size first; times set against the floors counted from the spec's bytes and flops.
 * With --steps, every prefix of a recipe the same way, each step beside the others (below). */
#ifndef KR_BENCH_H
#define KR_BENCH_H

#include "runtime/cuda.h"
#include "runtime/verify.h"

/* Ceilings measured on the lent H200 (DESIGN.md, 2026-11-29): device-to-device copy 4.27 TB/s and
 * fp32 SIMT matmul (cuBLAS) 51 TFLOP/s. The floor is the larger of bytes and flops over them. */
#define KR_CEIL_BYTES_PER_S 4.27e12
#define KR_CEIL_FLOPS_PER_S 51e12

typedef struct KrBenchRunOptions {
  const char *candidate;           /* as for verify: a .cu file, */
  const struct KrRecipeRun *run;   /* or a recipe applied once already, its first
                                    * `passes` passes (SIZE_MAX: all, named by the recipe) */
  size_t passes;
  const char *arch;                /* NULL: the device's */
  const char *dump_dir;            /* write inputs and both outputs here (for bench/torch_seed.py) */
  KrBenchOptions timing;
} KrBenchRunOptions;

typedef struct KrBenchReport {
  const char *problem, *reference, *candidate, *precision;
  const char *gpu, *arch;
  const char *sizes;               /* "n=16777216" */
  KrBenchTimes original, rewritten;
  double speedup;                  /* original median / candidate median */
  double bytes, flops;             /* from the spec; 0 when not given */
  double floor_ms;
  double check_rel_l2;             /* candidate vs original output at the benchmark size */
  bool check_pass;
  const char *resources_original, *resources_candidate;  /* ptxas reports, JSON */
  const char *error;
} KrBenchReport;

KrStatus kr_bench(const KrSpec *spec, const KrBenchRunOptions *o, KrArena *arena,
                  KrBenchReport **out, KrDiags *diags);
void kr_bench_text(const KrBenchReport *r, KrBuf *out);
void kr_bench_json(const KrBenchReport *r, KrBuf *out);

/* ---- The prefixes of a recipe on the GPU (runtime/bench.c) ------------------------------------- */

/* One step of kr_bench_prefixes: a prefix of a recipe's run. */
typedef struct KrBenchStep {
  size_t passes;                   /* in: the run's input after its first `passes` passes */
  bool timed;                      /* out: `times` holds its times */
  KrBenchTimes times;
  double check_rel_l2;             /* its output against the original's at the benchmark size */
  const char *error;               /* why it was not timed (does not compile, outputs differ) */
  const char *resources;           /* ptxas's report of its cubin (JSON), or NULL */
} KrBenchStep;

/* `krewrite bench --steps` on the GPU: builds the original and each step with nvcc, runs each
 * step once at the benchmark sizes on the original's inputs and compares the outputs (as
 * kr_bench does), then times the original and every step that agreed, interleaved in one child
 * (each a variant of kr_cuda_bench), so that a step is measured beside its neighbours. A step
 * that does not build or disagrees gets its error and is not timed. *original gets the
 * original's times. KR_ERR, with the reason in *error, when the original cannot be built or
 * run, or the timing failed; no step is timed then. The run is the recipe applied once
 * (kr_recipe_apply); nothing here applies it again. */
KrStatus kr_bench_prefixes(const KrSpec *spec, const struct KrRecipeRun *run, const char *arch,
                           const KrBenchOptions *timing, KrBenchStep *steps, size_t n,
                           KrBenchTimes *original, const char **error, KrArena *arena, KrDiags *diags);

/* ---- Every prefix of a recipe: `krewrite bench --steps` (runtime/steps.c) ------------------------
 * The recipe is applied once, by the caller (search/candidate.h); its audit record lists the passes it applied, in
 * order, each with the text after it. Step 0 is the original, step i the text after the i-th
 * applied pass (a k:try that did not apply is no step). Each step from 1 on is verified against
 * the original as a candidate is (kr_verify); on the GPU, the original and every verified step
 * are then timed in one child (kr_bench_prefixes). Without a GPU the steps are verified only,
 * each "not timed: no GPU". */

/* Slower than the previous timed step by more than this fraction: a regression. */
#define KR_STEPS_REGRESSION 0.01

typedef enum { KR_STEP_ORIGINAL, KR_STEP_VERIFIED, KR_STEP_FAILED, KR_STEP_BUILD_FAILED } KrStepState;

typedef struct KrStepRow {
  size_t step;                     /* 0: the original; i: after the recipe's i-th applied pass */
  const char *pass, *kernel;       /* the pass applied at this step and its kernel; NULL at 0 */
  const char *given, *params;      /* its arguments as the recipe gave them, and with the defaults (JSON) */
  KrStepState state;
  size_t passed, failed;           /* verification's cases */
  const char *failure;             /* the first failing case, or why verification stopped */
  const char *precision;           /* "strict fp32", "lowered (tensor_core: tolerance 1e-3)" */
  double tolerance;
  bool timed;
  KrBenchTimes times;
  double vs_original;              /* the original's median over this step's (> 1: faster) */
  double vs_previous;              /* the previous timed step's median over this step's */
  size_t previous;                 /* that step */
  bool regression;                 /* vs_previous below 1 - KR_STEPS_REGRESSION */
  const char *note;                /* why it was not timed, or NULL */
} KrStepRow;

typedef struct KrStepsOptions {
  const struct KrRecipeRun *run;   /* the recipe applied once (search/candidate.h) */
  KrDevice device;                 /* where the steps are verified: the emulator (default) or the GPU */
  const char *arch;                /* nvcc target, with a GPU */
  bool gpu;                        /* time the steps on the GPU; false: verify only */
  const char *no_gpu;              /* without one, what the probe said ("no GPU: ...") */
  KrBenchOptions timing;
} KrStepsOptions;

typedef struct KrStepsReport {
  const char *problem, *sizes, *source, *recipe, *recipe_text;
  char source_sha256[65];
  const char *defines;             /* the recipe's -D values, a JSON object */
  const char *gpu, *arch;          /* set by the caller; NULL without a GPU */
  KrDevice verified_on;
  bool timed;                      /* a GPU timed the steps */
  const char *timing_note;         /* why nothing was timed ("not timed: no GPU"), or NULL */
  const char *no_gpu;              /* without a GPU, what the probe said */
  KrVec(KrStepRow) steps;
  KrVec(const char *) skipped;     /* "pass on kernel: reason" for each k:try that did not apply */
  size_t verified, timed_steps;    /* steps from 1 on */
  const char *error;               /* what stopped the run (the recipe failed), or NULL */
} KrStepsReport;

/* Runs the steps; *out is allocated from `arena`. KR_OK when every step verified and, with a
 * GPU, was timed. */
KrStatus kr_bench_steps(const KrSpec *spec, const KrStepsOptions *o, KrArena *arena, KrStepsReport **out,
                        KrDiags *diags);
/* A table: step, pass and its arguments, verification, median, against the original and against
 * the previous step (regressions marked); or the same as JSON (what `krewrite report --timings`
 * reads). */
void kr_bench_steps_text(const KrStepsReport *r, KrBuf *out);
void kr_bench_steps_json(const KrStepsReport *r, KrBuf *out);

#endif
