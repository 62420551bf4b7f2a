/* bench/bench_emu.c: what a thread costs on the CPU emulator, so that a spec's
 * test sizes can be chosen knowing what verification will take. Three kernels of our own, each a
 * common shape of work:
 *   stream    y[i] = a * x[i] + y[i]: one load, one store and a guard per thread
 *   loop      each thread walks 256 elements (a dot product with a wrapped index): the cost of one
 *             iteration of a per-thread loop
 *   barrier   256-thread blocks reducing through shared memory: 8 __syncthreads per thread, each a
 *             switch between the block's fibers
 * Each runs at 2^14 and 2^18 threads with the emulator's defaults (shuffled order, the race check
 * of its kind), in a forked child as verify runs it; a one-block launch is taken off as the fixed
 * cost (fork, module load). Prints one JSON object: nanoseconds per thread (and per loop iteration
 * and per barrier), the median of 5 runs, and the machine's compiler.
 *   bench_emu [CACHE_DIR] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/emu.h"

static const char *source =
  "__global__ void stream(int n, float a, const float *x, float *y) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) y[i] = a * x[i] + y[i];\n"
  "}\n"
  "__global__ void loop(int n, const float *x, float *y) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i >= n) return;\n"
  "  float acc = 0.0f;\n"
  "  for (int k = 0; k < 256; k++) acc += x[(i + k) % n] * x[k % n];\n"
  "  y[i] = acc;\n"
  "}\n"
  "__global__ void barrier(int n, const float *x, float *y) {\n"
  "  __shared__ float s[256];\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  s[threadIdx.x] = i < n ? x[i] : 0.0f;\n"
  "  __syncthreads();\n"
  "  for (int w = 128; w > 0; w /= 2) {\n"
  "    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];\n"
  "    __syncthreads();\n"
  "  }\n"
  "  if (threadIdx.x == 0) y[blockIdx.x] = s[0];\n"
  "}\n";

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median wall time of 5 runs of `kernel` over `threads` threads (blocks of 256). */
static double run(KrEmuModule *m, const char *kernel, int threads, float *x, float *y, KrDiags *d) {
  int n = threads;
  float a = 2.0f;
  void *sargs[] = {&n, &a, &x, &y}, *largs[] = {&n, &x, &y};
  bool is_stream = strcmp(kernel, "stream") == 0;
  KrEmuLaunch l = {.kernel = kernel, .grid = {(uint32_t)((threads + 255) / 256), 1, 1}, .block = {256, 1, 1},
                   .args = is_stream ? sargs : largs, .nargs = is_stream ? 4 : 3};
  KrEmuOptions o = {.seed = 1, .shuffle = true, .timeout_s = 600};
  double t[5];
  for (int r = 0; r < 5; r++) {
    double t0 = now_s();
    if (kr_emu_run(m, &l, 1, &o, d) != KR_OK) return -1;
    t[r] = now_s() - t0;
  }
  qsort(t, 5, sizeof t[0], cmp_double);
  return t[2];
}

int main(int argc, char **argv) {
  const char *cache = argc > 1 ? argv[1] : NULL;
  KrDiags *d = kr_diags_new();
  const char *kernels[] = {"stream", "loop", "barrier"};
  KrEmuModule *m = NULL;
  double tb = now_s();
  if (kr_emu_build("bench_emu.cu", source, strlen(source), kernels, 3, cache, &m, d) != KR_OK) {
    KrBuf b = {0};
    kr_diags_format(d, &b);
    fprintf(stderr, "bench_emu: the module did not build:\n%s", b.data ? b.data : "");
    return 1;
  }
  double build_s = now_s() - tb;
  enum { BIG = 1 << 18, SMALL = 1 << 14 };
  float *x = kr_emu_alloc_elems(BIG, 4, "x"), *y = kr_emu_alloc_elems(BIG, 4, "y");
  for (int i = 0; i < BIG; i++) x[i] = (float)(i % 17) * 0.25f, y[i] = 1.0f;
  printf("{\"what\": \"CPU emulator cost per thread (bench/bench_emu.c)\", \"module_build_s\": %.3f, \"kernels\": {",
         build_s);
  for (int k = 0; k < 3; k++) {
    double fixed = run(m, kernels[k], 256, x, y, d);
    double small = run(m, kernels[k], SMALL, x, y, d), big = run(m, kernels[k], BIG, x, y, d);
    if (fixed < 0 || small < 0 || big < 0) {
      KrBuf b = {0};
      kr_diags_format(d, &b);
      fprintf(stderr, "bench_emu: %s failed:\n%s", kernels[k], b.data ? b.data : "");
      return 1;
    }
    double per = (big - fixed) / (BIG - 256) * 1e9;   /* ns per thread, the fixed cost taken off */
    printf("%s\n  \"%s\": {\"fixed_ms\": %.2f, \"ms_at_%d\": %.2f, \"ms_at_%d\": %.2f, \"ns_per_thread\": %.1f",
           k ? "," : "", kernels[k], fixed * 1e3, SMALL, small * 1e3, BIG, big * 1e3, per);
    if (k == 1) printf(", \"ns_per_iteration\": %.2f", per / 256);
    if (k == 2) printf(", \"ns_per_barrier\": %.1f", per / 9);
    printf("}");
  }
  printf("\n}}\n");
  kr_emu_free(x);
  kr_emu_free(y);
  kr_emu_module_free(m);
  kr_diags_free(d);
  return 0;
}
