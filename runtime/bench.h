/* runtime/bench.h: timing a candidate against the original on the GPU (`krewrite bench`), by the
 * rules of PERF.md: CUDA events around the launches only, warm-up, at least 50 repetitions and
 * 1 s, median/min/spread, the L2 flushed before each repetition, input sets rotated, original and
 * candidate interleaved in one process; both outputs checked against each other at the
 * benchmark size first; times set against the floors counted from the spec's bytes and flops. */
#ifndef KR_BENCH_H
#define KR_BENCH_H

#include "runtime/cuda.h"
#include "runtime/verify.h"

/* Ceilings measured on the lent H200 (DESIGN.md, 2026-11-29): device-to-device copy 4.27 TB/s and
 * fp32 SIMT matmul (cuBLAS) 51 TFLOP/s. The floor is the larger of bytes and flops over them. */
#define KR_CEIL_BYTES_PER_S 4.27e12
#define KR_CEIL_FLOPS_PER_S 51e12

typedef struct KrBenchRunOptions {
  const char *recipe, *candidate;  /* as for verify */
  const void *recipe_opts;
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

#endif
