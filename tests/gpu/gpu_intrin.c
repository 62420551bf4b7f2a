/* tests/gpu/gpu_intrin.c: the CPU emulator's fast math intrinsics against the GPU's (ctest label
 * gpu; exits 77, skipped, without a device). Runs tests/emu/intrin.cu on the same arguments on
 * both (tests/emu/intrin_cases.h), prints per intrinsic the max and mean error of each against
 * the exact value and their largest difference, and fails when the GPU itself leaves the bound
 * the emulator's test checks (the bounds would be wrong), when the emulator does, or when the
 * emulator's mean error is not within a factor of 4 of the GPU's (its model has the wrong
 * magnitude). A standalone program with the same kernel and the same arguments, run on an H200
 * (sm_90, CUDA 13) on 2026-12-01, met all three: the GPU within every bound (at most 1.0 of
 * it), the emulator's mean error between 0.85x and 2.6x the GPU's (__log10f the farthest). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nvcc.h"
#include "runtime/cuda.h"
#include "runtime/emu.h"
#include "tests/emu/intrin_cases.h"

static int fail(KrDiags *d, const char *what) {
  KrBuf b = {0};
  kr_diags_format(d, &b);
  fprintf(stderr, "gpu_intrin: %s\n%s", what, b.data ? b.data : "");
  kr_buf_free(&b);
  return 1;
}

typedef struct Stats {
  double worst_ratio, mean;  /* max error / bound; mean error in the bound's unit */
  int over;                  /* results beyond the bound */
} Stats;

static Stats measure(const IntrinCase *c, const float *x, const float *y, const float *r, int n) {
  Stats s = {0};
  for (int i = 0; i < n; i++) {
    double bound, e = intrin_error(c, x[i], y[i], r[i], &bound);
    double ratio = bound > 0 ? e / bound : (e > 0 ? INFINITY : 0);
    if (!(e <= bound)) s.over++;
    if (!(ratio <= s.worst_ratio)) s.worst_ratio = ratio;
    s.mean += e / n;
  }
  return s;
}

int main(void) {
  KrDiags *d = kr_diags_new();
  char name[256];
  int major, minor;
  if (kr_cuda_probe(name, sizeof name, &major, &minor, d) != KR_OK) {
    printf("skipped: no GPU\n");
    kr_diags_free(d);
    return 77;
  }
  KrArena *a = kr_arena_new();
  const char *root = getenv("KR_SOURCE_DIR");   /* a copy of the tree elsewhere (the GPU machine) */
  char *path = kr_arena_printf(a, "%s/tests/emu/intrin.cu", root && *root ? root : KR_SOURCE_DIR);
  char *text;
  size_t len;
  if (kr_file_read(path, a, &text, &len, d) != KR_OK) return fail(d, "cannot read intrin.cu");
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
  KrNvccOptions no = {.arch = arch, .no_cache = true};
  KrCubin cub;
  if (kr_nvcc_compile(path, text, len, &no, a, &cub, d) != KR_OK) return fail(d, "nvcc failed");
  char cache[] = "/tmp/kr-gpu-intrin.XXXXXX";
  if (!mkdtemp(cache)) return fail(d, "mkdtemp failed");
  const char *kernels[] = {"intrinsic"};
  KrEmuModule *m;
  if (kr_emu_build(path, text, len, kernels, 1, cache, &m, d) != KR_OK)
    return fail(d, "the emulator build failed");

  int n = KR_IN_N;
  size_t bytes = (size_t)n * 4;
  float *x = kr_emu_alloc(bytes, "x"), *y = kr_emu_alloc(bytes, "y");
  float *ge = kr_emu_alloc(bytes, "out"), *em = kr_emu_alloc(bytes, "out");
  if (!x || !y || !ge || !em) return fail(d, "out of memory");
  printf("device: %s (%s); %d arguments per intrinsic\n", name, arch, n);
  printf("%-12s %10s %10s %11s %11s %9s\n", "intrinsic", "gpu max/b", "emu max/b", "gpu mean",
         "emu mean", "max diff");
  int bad = 0;
  for (int k = 0; k < KR_IN_CASES; k++) {
    const IntrinCase *c = &kIntrinCases[k];
    for (int i = 0; i < n; i++) intrin_input(c->domain, i, &x[i], &y[i]);
    int op = c->op;
    void *ga[] = {&op, &n, &x, &y, &ge};
    int tie[] = {-1, -1, 0, 1, 2};
    KrCudaBuffer bufs[] = {{"x", x, bytes}, {"y", y, bytes}, {"out", ge, bytes}};
    KrCudaLaunch gl = {"intrinsic", {64, 1, 1}, {256, 1, 1}, 0, ga, tie, 5};
    if (kr_cuda_run(cub.data, cub.size, &gl, 1, bufs, 3, 60, d) != KR_OK) return fail(d, c->name);
    void *ea[] = {&op, &n, &x, &y, &em};
    KrEmuLaunch el = {.kernel = "intrinsic", .grid = {8, 1, 1}, .block = {128, 1, 1}, .args = ea,
                      .nargs = 5};
    if (kr_emu_run(m, &el, 1, NULL, d) != KR_OK) return fail(d, c->name);
    Stats g = measure(c, x, y, ge, n), e = measure(c, x, y, em, n);
    double diff = 0;
    for (int i = 0; i < n; i++)
      if (ge[i] != em[i]) diff = fmax(diff, fabs((double)ge[i] - em[i]) / intrin_ulp(ge[i]));
    printf("%-12s %10.3g %10.3g %11.3g %11.3g %8.3g\n", c->name, g.worst_ratio, e.worst_ratio,
           g.mean, e.mean, diff);
    if (g.over) bad = 1, printf("  the GPU leaves the bound on %d results: the bound is wrong\n", g.over);
    if (e.over) bad = 1, printf("  the emulator leaves the bound on %d results\n", e.over);
    if (c->must_differ && g.mean > 0 && (e.mean > 4 * g.mean || e.mean < g.mean / 4))
      bad = 1, printf("  the emulator's mean error is not within 4x of the GPU's\n");
    if (!c->must_differ && diff > 0) bad = 1, printf("  the emulator differs from the GPU\n");
  }
  kr_emu_module_free(m);
  kr_emu_free(x), kr_emu_free(y), kr_emu_free(ge), kr_emu_free(em);
  kr_arena_free(a);
  kr_diags_free(d);
  return bad;
}
