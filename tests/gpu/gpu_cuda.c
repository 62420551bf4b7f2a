/* tests/gpu/gpu_cuda.c: the CUDA backend on a real GPU (ctest label gpu). Exits 77 (skipped) when
 * the probe finds no GPU; otherwise compiles two saxpy kernels with nvcc for the device's
 * architecture, checks one run against plain C at an awkward size (inputs must come back
 * unchanged), checks that an illegal address is reported by name with its kernel, times both
 * variants interleaved and prints the table. Any failure exits 1 with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nvcc.h"
#include "runtime/cuda.h"

static const char kSource[] =
  "extern \"C\" __global__ void saxpy(int n, float a, const float *x, float *y) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) y[i] = a * x[i] + y[i];\n"
  "}\n"
  "namespace ns {\n"
  "template <int U> __global__ void saxpy_stride(int n, float a, const float *__restrict__ x,\n"
  "                                             float *__restrict__ y) {\n"
  "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
  "    y[i] = a * x[i] + y[i];\n"
  "}\n"
  "template __global__ void saxpy_stride<1>(int, float, const float *, float *);\n"
  "}\n"
  "extern \"C\" __global__ void bad_write(float *x) {\n"
  "  float *p = (float *)(((unsigned long long)x & 0xfff) | 0x1000);\n"
  "  p[threadIdx.x] = 1.0f;\n"
  "}\n";

static int fail(KrDiags *d, const char *what) {
  KrBuf b = {0};
  kr_diags_format(d, &b);
  fprintf(stderr, "gpu_cuda: %s\n%s", what, b.data ? b.data : "");
  kr_buf_free(&b);
  return 1;
}

int main(void) {
  KrDiags *d = kr_diags_new();
  char name[256];
  int major, minor;
  if (kr_cuda_probe(name, sizeof name, &major, &minor, d) != KR_OK) {
    KrBuf b = {0};
    kr_diags_format(d, &b);
    printf("skipped: %s", b.data ? b.data : "no GPU\n");
    kr_buf_free(&b);
    kr_diags_free(d);
    return 77;
  }
  printf("device: %s (sm_%d%d)\n", name, major, minor);
  KrArena *a = kr_arena_new();
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
  KrNvccOptions no = {.arch = arch, .no_cache = true};
  KrCubin c;
  if (kr_nvcc_compile("gpu_cuda.cu", kSource, strlen(kSource), &no, a, &c, d) != KR_OK)
    return fail(d, "nvcc failed");

  int n = (1 << 24) + 3;
  float alpha = 1.5f;
  size_t bytes = (size_t)n * sizeof(float);
  float *x = kr_emu_alloc(bytes, "x"), *y = kr_emu_alloc(bytes, "y");
  if (!x || !y) return fail(d, "out of memory");
  for (int i = 0; i < n; i++) x[i] = (float)(i % 1009) * 0.25f, y[i] = (float)(i % 13);
  KrCudaBuffer bufs[] = {{"x", x, bytes}, {"y", y, bytes}};
  void *args[] = {&n, &alpha, &x, &y};
  int tie[] = {-1, -1, 0, 1};
  KrCudaLaunch one = {"saxpy", {(unsigned)((n + 255) / 256), 1, 1}, {256, 1, 1}, 0, args, tie, 4};
  KrCudaLaunch two = {"ns::saxpy_stride<1>", {132 * 8, 1, 1}, {256, 1, 1}, 0, args, tie, 4};
  if (kr_cuda_run(c.data, c.size, &one, 1, bufs, 2, 60, d) != KR_OK) return fail(d, "saxpy failed");
  for (int i = 0; i < n; i++) {
    float want = alpha * ((float)(i % 1009) * 0.25f) + (float)(i % 13);
    if (x[i] != (float)(i % 1009) * 0.25f || y[i] != want) {
      fprintf(stderr, "gpu_cuda: element %d: x %g y %g, want y %g\n", i, x[i], y[i], want);
      return 1;
    }
  }
  printf("saxpy: %d elements correct, input unchanged\n", n);

  KrCudaLaunch bad = {"bad_write", {1, 1, 1}, {32, 1, 1}, 0, &args[2], &tie[2], 1};
  KrDiags *e = kr_diags_new();
  KrBuf msg = {0};
  KrStatus st = kr_cuda_run(c.data, c.size, &bad, 1, bufs, 2, 60, e);
  kr_diags_format(e, &msg);
  if (st != KR_ERR || !msg.data || !strstr(msg.data, "CUDA_ERROR_ILLEGAL_ADDRESS") ||
      !strstr(msg.data, "kernel 'bad_write'")) {
    fprintf(stderr, "gpu_cuda: the illegal address was not reported as expected:\n%s\n",
            msg.data ? msg.data : "(nothing)");
    return 1;
  }
  printf("illegal address: %s", msg.data);

  KrBenchVariant v[] = {{"saxpy", c.data, c.size, &one, 1},
                        {"saxpy_stride", c.data, c.size, &two, 1}};
  bool is_input[] = {true, false}, is_inout[] = {false, true};
  KrBenchOptions o = kr_bench_options_default();
  KrBenchTimes t[2];
  if (kr_cuda_bench(v, 2, bufs, is_input, is_inout, 2, &o, t, d) != KR_OK) return fail(d, "bench failed");
  printf("%-14s %10s %10s %10s %10s %10s %6s %8s\n", "variant", "median_ms", "min", "p10", "p90",
         "max", "reps", "GB/s");
  for (int i = 0; i < 2; i++) {
    double gbs = 3.0 * (double)bytes / (t[i].median_ms * 1e-3) / 1e9;
    printf("%-14s %10.4f %10.4f %10.4f %10.4f %10.4f %6d %8.0f\n", v[i].label, t[i].median_ms,
           t[i].min_ms, t[i].p10_ms, t[i].p90_ms, t[i].max_ms, t[i].reps, gbs);
    if (!(t[i].min_ms > 0 && t[i].median_ms < 100 && t[i].reps >= o.min_reps))
      return fprintf(stderr, "gpu_cuda: implausible times\n"), 1;
  }
  kr_emu_free(x);
  kr_emu_free(y);
  kr_arena_free(a);
  kr_diags_free(e);
  kr_buf_free(&msg);
  kr_diags_free(d);
  return 0;
}
