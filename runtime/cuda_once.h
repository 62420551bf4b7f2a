/* runtime/cuda_once.h: one set of a problem's launches, run once on the GPU for a profiler to
 * watch (`krewrite profile`, search/profile.h). Nsight Compute profiles the kernels of the
 * processes it starts; krewrite starts itself under it in a hidden mode (`krewrite profile
 * --launch-once ...`) that calls kr_cuda_launch_once, so the profiler sees exactly the spec's
 * launches of the candidate, once each, at the benchmark sizes, and nothing else: no reference
 * run, no warm-up, no L2 flush.
 *
 * Unlike every other GPU entry point (runtime/cuda.h), kr_cuda_launch_once initialises CUDA in
 * the calling process rather than in a forked child. The process is itself a disposable child,
 * started by the profiler for this one run, and a profiler follows the processes it starts with
 * exec but cannot be relied on to follow a fork without exec. A fault or a hang therefore ends
 * that process, and the caller's time limit on the profiler covers it. */
#ifndef KR_CUDA_ONCE_H
#define KR_CUDA_ONCE_H

#include "runtime/spec.h"

typedef struct KrLaunchOnceOptions {
  const struct KrRecipeRun *run;  /* the candidate is this recipe's run, whole (search/candidate.h), */
  const char *candidate;   /* or this .cu; both NULL: the spec's own source (the original) */
  const char *arch;        /* nvcc target, "sm_90"; NULL: KR_NVCC_DEFAULT_ARCH */
} KrLaunchOnceOptions;

/* Makes the candidate and compiles it for `arch` through the cubin cache (backend/nvcc.h), without
 * running anything: the check a caller makes before it starts a profiler on kr_cuda_launch_once,
 * which then finds the cubin in the cache. *label (may be NULL) names the candidate for reports.
 * KR_ERR with the recipe's or nvcc's errors in `diags`. */
KrStatus kr_cuda_once_build(const KrSpec *spec, const KrLaunchOnceOptions *o, KrArena *arena,
                            const char **label, KrDiags *diags);

/* Builds the candidate as kr_cuda_once_build does, allocates the spec's buffers at the benchmark
 * sizes, fills the inputs (seed 1, as bench's check run), poisons the outputs, then, in this
 * process: loads the cubin, copies the buffers to the device, runs each launch of the spec once
 * in order, synchronizing after each, and copies the buffers back. KR_OK when every launch
 * completed; else KR_ERR with one error naming the kernel and the cause (no GPU: an error that
 * starts "no GPU: ", as kr_cuda_probe's). Kernel printf output goes to the process's stdout. */
KrStatus kr_cuda_launch_once(const KrSpec *spec, const KrLaunchOnceOptions *o, KrArena *arena,
                             KrDiags *diags);

#endif
