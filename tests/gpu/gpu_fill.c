/* tests/gpu/gpu_fill.c: the GPU's fill module on a real GPU (ctest label gpu). Exits 77 (skipped)
 * when the probe finds no GPU; otherwise builds the fill module (runtime/fill/kr_fill.cu) for the
 * device and, for every element type and every generated fill kind, at a size of several host
 * chunks and for two seeds, fills a buffer on the device and checks that it holds the host's
 * fill bit for bit (and that the module's own check agrees), then times a 1 GiB fill. Any
 * difference exits 1 naming the element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "runtime/cuda.h"
#include "runtime/fill.h"
#include "runtime/fill/kr_fill.h"
#include "runtime/fill_module.h"

static int fail(KrDiags *d, const char *what) {
  KrBuf b = {0};
  kr_diags_format(d, &b);
  fprintf(stderr, "gpu_fill: %s\n%s", what, b.data ? b.data : "");
  kr_buf_free(&b);
  return 1;
}

/* Fills `n` elements on the device and on the host; 0 when they are the same bits. */
static int same(KrCudaServer *s, KrDtype t, KrFillKind k, double a, double b, uint32_t seed, size_t n,
                KrDiags *d) {
  size_t bytes = n * kr_dtype_size(t);
  void *dev = kr_cuda_server_alloc(s, bytes), *back = kr_cuda_server_alloc(s, bytes), *host = malloc(bytes);
  if (!dev || !back || !host) return fail(d, "out of memory");
  kr_fill_generate(host, t, n, k, a, b, seed, 7);
  KrCudaData fill = {.kind = KR_CUDA_DATA_FILL, .name = "x", .host = dev, .bytes = bytes,
                     .key = kr_gen_key(seed, 7), .count = n, .a = a, .b = b, .gen = kr_fill_gen_kind(k),
                     .dtype = (int)t};
  KrCudaData ops[] = {fill, fill, {.kind = KR_CUDA_DATA_DOWNLOAD, .name = "x", .host = dev, .bytes = bytes, .to = back}};
  ops[1].kind = KR_CUDA_DATA_CHECK;
  if (kr_cuda_server_data(s, 0, ops, 3, d) != KR_OK) return fail(d, "the fill request failed");
  size_t es = kr_dtype_size(t);
  for (size_t i = 0; i < n; i++)
    if (memcmp((char *)back + i * es, (char *)host + i * es, es) != 0) {
      fprintf(stderr, "gpu_fill: %s fill kind %d, seed %u: element %zu differs (device %.17g, host %.17g)\n",
              kr_dtype_name(t), (int)k, seed, i, kr_elem_get(back, t, i), kr_elem_get(host, t, i));
      return 1;
    }
  if (ops[1].first_diff != UINT64_MAX) {
    fprintf(stderr, "gpu_fill: the module's check says element %llu differs\n",
            (unsigned long long)ops[1].first_diff);
    return 1;
  }
  free(host);
  kr_cuda_server_reset(s);
  return 0;
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
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
  KrCubin c;
  if (kr__fill_module_build(arch, a, &c, d) != KR_OK) return fail(d, "the fill module does not build");
  KrCudaServerModule mods[] = {{c.data, c.size, "fill module"}};
  KrCudaServer *s = NULL;
  size_t gib = (size_t)1 << 30;
  if (kr_cuda_server_start(mods, 1, gib + ((size_t)64 << 20), 120, &s, d) != KR_OK)
    return fail(d, "the GPU process does not start");
  static const KrFillKind kinds[] = {KR_FILL_UNIFORM, KR_FILL_NORMAL, KR_FILL_INTS, KR_FILL_ZERO};
  static const double lo[] = {-1, 0.25, -40, 0}, hi[] = {3, 2, 1000, 0};
  size_t n = ((size_t)5 << 20) + 77;   /* several host chunks, an awkward tail */
  for (int t = KR_DT_F32; t <= KR_DT_I64; t++)
    for (int k = 0; k < 4; k++)
      for (uint32_t seed = 1; seed <= 1001; seed += 1000)
        if (same(s, (KrDtype)t, kinds[k], lo[k], hi[k], seed, n, d)) return 1;
  printf("device fills equal the host's for 5 types x 4 kinds x 2 seeds of %zu elements\n", n);
  /* 1 GiB of normal fp32 and the same of uniform: the benchmark-size cost. */
  for (int k = 0; k < 2; k++) {
    float *x = kr_cuda_server_alloc(s, gib);
    KrCudaData f = {.kind = KR_CUDA_DATA_FILL, .name = "big", .host = x, .bytes = gib,
                    .key = kr_gen_key(1, 0), .count = gib / 4, .a = 0, .b = 1,
                    .gen = kr_fill_gen_kind(kinds[k]), .dtype = KR_DT_F32};
    double t0 = kr_now_s();
    if (kr_cuda_server_data(s, 0, &f, 1, d) != KR_OK) return fail(d, "the 1 GiB fill failed");
    printf("1 GiB %s fill on the device: %.1f ms\n", k ? "normal" : "uniform", (kr_now_s() - t0) * 1e3);
    kr_cuda_server_reset(s);
  }
  kr_cuda_server_free(s);
  kr_arena_free(a);
  kr_diags_free(d);
  return 0;
}
