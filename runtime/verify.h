/* runtime/verify.h: verification of a candidate kernel against the original (the reference) on
 * fresh random inputs (DESIGN.md, "Problem specs, verification, timing"). For every test size
 * and several seeds: the same inputs for both, outputs poisoned (NaN) before each run, every
 * element must be written, NaN never passes, ||out - ref|| / ||ref|| against the tolerance,
 * inputs must come back unmodified unless declared inout. */
#ifndef KR_VERIFY_H
#define KR_VERIFY_H

#include "runtime/spec.h"

typedef enum { KR_DEVICE_CPU, KR_DEVICE_CUDA } KrDevice;

struct KrRecipeRun;        /* recipes/recipe.h */

typedef struct KrVerifyOptions {
  KrDevice device;         /* the CPU emulator (default) or the GPU */
  const char *arch;        /* for the GPU: "sm_90"; NULL: the device's */
  const char *candidate;   /* take this .cu as the candidate */
  const struct KrRecipeRun *run;  /* or a recipe applied once already (kr_recipe_apply: search/candidate.h): the
                            * candidate is its input after its first `passes` passes (bench --steps);
                            * SIZE_MAX: after all of them, named by the recipe (optimize's candidates) */
  size_t passes;
  uint32_t seeds;          /* 0: the spec's */
  uint32_t max_cases;      /* 0: every test case; else the first N (quick runs under a sanitizer) */
  bool shuffle;            /* randomise the thread order of the candidate (exposes races) */
  bool race_check;         /* emulator: check races on global memory for every kernel (by default
                            * only when the original or the candidate uses shared memory or atomics) */
  double timeout_s;        /* per launch */
  const char *cache_dir;   /* emulator build cache; NULL: the default */
  bool compile_report;     /* also fill the report's compile and resources (see below) */
  double extra_budget_s;   /* seconds for the sizes beyond the test list and the benchmark-size
                            * check (see docs/problems.md); 0: KR_VERIFY_EXTRA_BUDGET_S; < 0: none */
  bool offset_cases;       /* an offset case for every buffer the launches pass to a pointer
                            * parameter, not only for those a pass reads in wider units (verify
                            * --offset-cases; verify.c, "Offset cases") */
  /* Called at once, before the cases run, with a warning worth seeing before waiting for them (a
   * launch predicted to run far past its time limit on the emulator); NULL: it goes to the
   * diagnostics. The report's notes hold it either way. */
  void (*warn)(void *ctx, const KrDiag *warning);
  void *warn_ctx;
} KrVerifyOptions;

#define KR_VERIFY_EXTRA_BUDGET_S 0.5

typedef struct KrBufferCheck {
  const char *buffer;
  double rel_l2, max_abs, max_rel;
  size_t mismatches;       /* integers: elements that differ */
} KrBufferCheck;

typedef struct KrCaseResult {
  const char *kind;        /* "test", "offset case", "beyond the test sizes", "benchmark size" */
  size_t index;            /* test case */
  uint32_t seed;
  const char *sizes;       /* "n=7, m=3" */
  bool pass;
  const char *failure;     /* why it failed, or NULL */
  const char *offset;      /* an offset case: the buffer moved, "x + 1" (one element past an
                            * aligned address), and why it was run ("parameter 'x' of
                            * 'vector_add', which vectorize accesses as 16-byte vectors"); else NULL */
  const char *offset_why;
  KrVec(KrBufferCheck) checks;
} KrCaseResult;

typedef struct KrVerifyReport {
  const char *problem, *reference, *candidate;  /* names for the report */
  double tolerance;        /* relative L2 used */
  const char *precision;   /* "strict fp32" or "lowered (fast_math: 1e-5)" */
  KrVec(KrCaseResult) cases;
  size_t passed, failed;
  const char *error;       /* a failure that stopped verification: a build or recipe error, the
                            * reference failing to run, memory the cases cannot have */
  size_t skipped;          /* cases not run after `stopped` */
  const char *stopped;     /* why the rest was skipped (a candidate that hung), or NULL */
  KrVec(const char *) notes;  /* what was not checked and why (sizes skipped for memory or time) */
  double total_s, build_s, run_s, gpu_setup_s;  /* wall time: all, building both sides, running
                            * the cases (GPU: the context and module loads are gpu_setup_s) */
  double fill_s, copy_s, compare_s;  /* of run_s: filling inputs and poisoning outputs (restores
                            * between the sides included; on the GPU, on the device), copying
                            * buffers (the emulator: the reference's outputs kept; the GPU: outputs
                            * copied back), checking inputs and comparing outputs */
  bool build_failed;       /* that failure: the candidate does not build for the device */
  /* With opt->compile_report: the candidate's compile report as JSON, nvcc's ptxas resources
   * per kernel (kr_cubin_resources_json) for opt->arch (sm_90 when NULL), also on the emulator
   * when nvcc is present, or {"error": "..."}; and the same in one line of text. */
  const char *compile, *resources;
} KrVerifyReport;

/* Runs the protocol; *out is allocated from `arena`. Returns KR_OK when every case passed. */
KrStatus kr_verify(const KrSpec *spec, const KrVerifyOptions *opt, KrArena *arena,
                   KrVerifyReport **out, KrDiags *diags);
/* Builds the candidate as kr_verify would, for opt->device, without running it: the build caches
 * (the emulator's libraries, nvcc's cubins) are content-addressed and filled atomically, so a
 * kr_verify or kr_bench of the same candidate afterwards compiles nothing, and several processes
 * may prepare different candidates at once (`krewrite optimize --jobs`). With
 * opt->compile_report, *compile and *resources receive what kr_verify's report would hold (the
 * cubin for the report is built, and cached, too). KR_ERR when the candidate cannot be made or
 * does not build for opt->device. */
KrStatus kr_verify_prepare(const KrSpec *spec, const KrVerifyOptions *opt, KrArena *arena,
                           const char **compile, const char **resources, KrDiags *diags);
/* Warns when none of the run's passes rewrote a kernel the spec launches: the candidate would run
 * the original's kernels, so checking it says nothing. */
void kr_verify_warn_unlaunched(const KrSpec *spec, const struct KrRecipeRun *run, KrArena *arena, KrDiags *diags);
void kr_verify_text(const KrVerifyReport *r, KrBuf *out);
void kr_verify_json(const KrVerifyReport *r, KrBuf *out);

#endif
