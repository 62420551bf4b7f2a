/* tests/unit/cuda_fake_driver.c: a stand-in for libcuda.so.1, so that the CUDA backend's child
 * process (runtime/cuda.c, runtime/cuda_bench.c) runs end to end on machines without a GPU.
 * test_cuda.c compiles it into a shared library at test time and points KR_CUDA_LIB at it.
 * "Device" memory is host memory; a "cubin" is the text "FAKE" followed by function names, one a
 * line; the functions it knows are implemented below in C and run synchronously at launch. An
 * ELF image is refused with CUDA_ERROR_NO_BINARY_FOR_GPU, as a cubin for another GPU would be.
 * Errors a kernel raises surface at the next synchronisation, as on a GPU. The fill module's
 * kernels (runtime/fill/kr_fill.cu) run the generator header they are built from, so compile
 * this with -I at the repository's root. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/fill/kr_fill.h"

typedef int CUresult;
typedef struct Fn {
  const char *name;        /* mangled */
  int nparams;
  size_t sizes[8];
  int static_smem;
  int max_dyn;
  int count;               /* counter's __device__ variable: one per loaded module, as on a GPU */
  int module;              /* which load of a module this copy belongs to: 0, 1, ... */
} Fn;

static const Fn kFns[] = {
  {"saxpy", 4, {4, 4, 8, 8}, 0, 48 * 1024},
  {"_ZN2ns5scaleIfLi3EEEvPT_i", 2, {8, 4}, 0, 48 * 1024},
  {"_ZN2ns5scaleIfLi5EEEvPT_i", 2, {8, 4}, 0, 48 * 1024},
  {"bad_write", 1, {8}, 0, 48 * 1024},
  {"spin", 1, {8}, 0, 48 * 1024},
  {"big_smem", 2, {8, 4}, 1024, 48 * 1024 - 1024},
  {"counter", 1, {8}, 0, 48 * 1024},
  {"_Z10vector_addifPfS_S_", 5, {4, 4, 8, 8, 8}, 0, 48 * 1024},   /* examples/vector_add */
  {"kr_fill", 7, {8, 8, 8, 8, 8, 4, 4}, 0, 48 * 1024},                /* the fill module */
  {"kr_fill_check", 8, {8, 8, 8, 8, 8, 4, 4, 8}, 0, 48 * 1024},
};
enum { NFNS = sizeof kFns / sizeof kFns[0] };

typedef struct Module {
  Fn fns[NFNS];
  unsigned count;
} Module;

static int g_pending;      /* an error raised by a kernel, reported at the next synchronisation */
static int g_loads;        /* modules loaded so far in this process */
static int g_inited;

CUresult cuInit(unsigned flags) {
  (void)flags;
  if (getenv("KR_FAKE_CUDA_NO_DEVICE")) return 100;  /* CUDA_ERROR_NO_DEVICE */
  g_inited = 1;
  return 0;
}
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = g_inited ? 1 : 0; return g_inited ? 0 : 3; }
CUresult cuDeviceGet(int *d, int i) { *d = i; return i == 0 ? 0 : 101; }
CUresult cuDeviceGetName(char *s, int n, int d) {
  (void)d;
  strncpy(s, "Fake H200", (size_t)n);
  return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int d) {
  (void)d;
  switch (attr) {
  case 75: *v = 9; return 0;
  case 76: *v = 0; return 0;
  case 97: *v = 232448; return 0;
  case 16: *v = 132; return 0;   /* the SMs */
  default: return 1;
  }
}
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = (void *)1; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
CUresult cuCtxSetCurrent(void *c) { (void)c; return 0; }
CUresult cuCtxSynchronize(void) { return g_pending; }

/* KR_FAKE_CUDA_ELF: an ELF image (a real cubin from nvcc) is loaded as a module holding the
 * known functions whose mangled names it contains, so krewrite verify --device cuda runs end to
 * end on examples/vector_add; without it an ELF is refused as a cubin for another GPU. */
static void *elf_module(const char *image) {
  const unsigned char *u = (const unsigned char *)image;
  uint64_t shoff, size = 0;
  memcpy(&shoff, u + 40, 8);
  uint16_t shentsize = (uint16_t)(u[58] | u[59] << 8), shnum = (uint16_t)(u[60] | u[61] << 8);
  for (uint16_t i = 0; i < shnum; i++) {   /* the image ends with its section headers or a section */
    uint64_t off, sz;
    memcpy(&off, u + shoff + (uint64_t)i * shentsize + 24, 8);
    memcpy(&sz, u + shoff + (uint64_t)i * shentsize + 32, 8);
    if (off + sz > size) size = off + sz;
  }
  if (shoff + (uint64_t)shnum * shentsize > size) size = shoff + (uint64_t)shnum * shentsize;
  Module *mod = calloc(1, sizeof *mod);
  for (int i = 0; i < NFNS; i++) {
    size_t n = strlen(kFns[i].name);
    for (uint64_t k = 0; k + n <= size; k++)
      if (memcmp(image + k, kFns[i].name, n) == 0 && image[k + n] == 0) {
        mod->fns[mod->count] = kFns[i];
        mod->fns[mod->count++].module = g_loads;
        break;
      }
  }
  g_loads++;
  return mod;
}

CUresult cuModuleLoadData(void **m, const void *image) {
  const char *p = image;
  if (memcmp(p, "\177ELF", 4) == 0 && getenv("KR_FAKE_CUDA_ELF")) {
    *m = elf_module(p);
    return 0;
  }
  if (memcmp(p, "\177ELF", 4) == 0) return 209;       /* CUDA_ERROR_NO_BINARY_FOR_GPU */
  if (strncmp(p, "FAKE\n", 5) != 0) return 200;       /* CUDA_ERROR_INVALID_IMAGE */
  Module *mod = calloc(1, sizeof *mod);
  for (p += 5; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    for (int i = 0; i < NFNS; i++)
      if (strlen(kFns[i].name) == n && strncmp(kFns[i].name, p, n) == 0) mod->fns[mod->count++] = kFns[i];
    p += n + (e ? 1 : 0);
  }
  *m = mod;
  return 0;
}
CUresult cuModuleUnload(void *m) { free(m); return 0; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
  Module *mod = m;
  for (unsigned i = 0; i < mod->count; i++)
    if (strcmp(mod->fns[i].name, name) == 0) {
      *f = &mod->fns[i];
      return 0;
    }
  return 500;                                         /* CUDA_ERROR_NOT_FOUND */
}
CUresult cuModuleGetFunctionCount(unsigned *n, void *m) { *n = ((Module *)m)->count; return 0; }
CUresult cuModuleEnumerateFunctions(void **fs, unsigned n, void *m) {
  Module *mod = m;
  if (n < mod->count) return 1;
  for (unsigned i = 0; i < mod->count; i++) fs[i] = &mod->fns[i];
  return 0;
}
CUresult cuFuncGetName(const char **name, void *f) { *name = ((Fn *)f)->name; return 0; }
CUresult cuFuncGetParamInfo(void *f, size_t i, size_t *off, size_t *size) {
  Fn *fn = f;
  if (i >= (size_t)fn->nparams) return 1;
  *off = 0;
  *size = fn->sizes[i];
  return 0;
}
CUresult cuFuncSetAttribute(void *f, int attr, int v) {
  if (attr != 8 || v > 232448 - ((Fn *)f)->static_smem) return 1;
  ((Fn *)f)->max_dyn = v;
  return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
  Fn *fn = f;
  switch (attr) {
  case 0: *v = 1024; return 0;
  case 1: *v = fn->static_smem; return 0;
  case 4: *v = 32; return 0;
  case 8: *v = fn->max_dyn; return 0;
  default: return 1;
  }
}

static void *arg(void **params, int i) { return params[i]; }
static float *fptr(void **params, int i) {
  float *p;
  memcpy(&p, arg(params, i), sizeof p);
  return p;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, void *stream, void **params, void **extra) {
  (void)gy, (void)gz, (void)by, (void)bz, (void)stream, (void)extra;
  Fn *fn = f;
  if (g_pending) return g_pending;
  if (smem > (unsigned)fn->max_dyn) return 1;
  long threads = (long)gx * bx;
  if (strcmp(fn->name, "saxpy") == 0) {
    int n = *(int *)arg(params, 0);
    float a = *(float *)arg(params, 1), *x = fptr(params, 2), *y = fptr(params, 3);
    for (long i = 0; i < threads && i < n; i++) y[i] = a * x[i] + y[i];
  } else if (strncmp(fn->name, "_ZN2ns5scaleIfLi", 16) == 0) {
    float *x = fptr(params, 0), k = (float)(fn->name[16] - '0');
    int n = *(int *)arg(params, 1);
    for (long i = 0; i < threads && i < n; i++) x[i] *= k;
  } else if (strcmp(fn->name, "bad_write") == 0) {
    g_pending = 700;                                  /* CUDA_ERROR_ILLEGAL_ADDRESS */
  } else if (strcmp(fn->name, "spin") == 0) {
    for (;;) pause();
  } else if (strcmp(fn->name, "_Z10vector_addifPfS_S_") == 0) {
    int n = *(int *)arg(params, 0);
    float a = *(float *)arg(params, 1), *x = fptr(params, 2), *y = fptr(params, 3), *out = fptr(params, 4);
    /* KR_FAKE_CUDA_CANDIDATE_BUG: the second module loaded (a verification's candidate) writes
     * its input x ("writes_input") or no output at all ("writes_nothing"). */
    const char *bug = fn->module == 1 ? getenv("KR_FAKE_CUDA_CANDIDATE_BUG") : NULL;
    if (bug && strcmp(bug, "writes_nothing") == 0) return 0;
    for (long i = 0; i < threads && i < n; i++) out[i] = a * x[i] + y[i];
    if (bug && strcmp(bug, "writes_input") == 0 && n > 2) x[n / 2] += 1.0f;
  } else if (strncmp(fn->name, "kr_fill", 7) == 0) {
    /* KR_FAKE_CUDA_SLOW_FILL=PATH: while PATH exists, a fill first says so on stderr and then takes
     * a minute, as a large problem's would on a slow device (the interruption test's). */
    const char *slow = getenv("KR_FAKE_CUDA_SLOW_FILL");
    if (slow && strcmp(fn->name, "kr_fill") == 0 && access(slow, F_OK) == 0) {
      static const char says[] = "fake driver: a slow fill begins\n";
      ssize_t w = write(2, says, sizeof says - 1);
      (void)w;
      sleep(60);
    }
    void *buf;
    memcpy(&buf, arg(params, 0), sizeof buf);
    uint64_t count = *(uint64_t *)arg(params, 1), key = *(uint64_t *)arg(params, 2);
    double a = *(double *)arg(params, 3), b = *(double *)arg(params, 4);
    int kind = *(int *)arg(params, 5), dtype = *(int *)arg(params, 6);
    if (strcmp(fn->name, "kr_fill") == 0) {
      for (uint64_t i = 0; i < count; i++) kr_gen_store(buf, dtype, i, kr_gen_value(key, kind, a, b, i));
    } else {
      uint64_t *first;
      memcpy(&first, arg(params, 7), sizeof first);
      for (uint64_t i = 0; i < count && i < *first; i++)
        if (!kr_gen_holds(buf, dtype, i, kr_gen_value(key, kind, a, b, i))) *first = i;
    }
  } else if (strcmp(fn->name, "counter") == 0) {
    int *out;
    memcpy(&out, arg(params, 0), sizeof out);
    out[0] = ++fn->count;
  } else if (strcmp(fn->name, "big_smem") == 0) {
    float *out = fptr(params, 0);
    int n = *(int *)arg(params, 1);
    out[0] = (float)(n - 1);
  }
  return 0;
}

/* KR_FAKE_CUDA_FREE_MIB: how much memory the fake device says is free (default 80 GiB). */
CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total_b) {
  const char *f = getenv("KR_FAKE_CUDA_FREE_MIB");
  *total_b = (size_t)141 << 30;
  *free_b = f ? (size_t)atol(f) << 20 : (size_t)80 << 30;
  return 0;
}
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
  void *m = malloc(n);
  if (!m) return 2;
  *p = (unsigned long long)(uintptr_t)m;
  return 0;
}
CUresult cuMemFree_v2(unsigned long long p) { free((void *)(uintptr_t)p); return 0; }
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) {
  memcpy((void *)(uintptr_t)d, s, n);
  return g_pending;
}
CUresult cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) {
  memcpy(d, (void *)(uintptr_t)s, n);
  return g_pending;
}
CUresult cuMemcpyDtoD_v2(unsigned long long d, unsigned long long s, size_t n) {
  memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
  return g_pending;
}
CUresult cuMemsetD8_v2(unsigned long long d, unsigned char v, size_t n) {
  memset((void *)(uintptr_t)d, v, n);
  return g_pending;
}
CUresult cuMemsetD16_v2(unsigned long long d, unsigned short v, size_t n) {
  for (size_t i = 0; i < n; i++) memcpy((char *)(uintptr_t)d + 2 * i, &v, 2);
  return g_pending;
}
CUresult cuMemsetD32_v2(unsigned long long d, unsigned v, size_t n) {
  for (size_t i = 0; i < n; i++) memcpy((char *)(uintptr_t)d + 4 * i, &v, 4);
  return g_pending;
}

typedef struct Event { double t; } Event;
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
CUresult cuEventCreate(void **e, unsigned flags) { (void)flags; *e = calloc(1, sizeof(Event)); return 0; }
CUresult cuEventRecord(void *e, void *s) { (void)s; ((Event *)e)->t = now(); return g_pending; }
CUresult cuEventSynchronize(void *e) { (void)e; return g_pending; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
  *ms = (float)((((Event *)b)->t - ((Event *)a)->t) * 1000.0);
  return 0;
}
CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }

CUresult cuGetErrorName(CUresult r, const char **s) {
  switch (r) {
  case 0: *s = "CUDA_SUCCESS"; return 0;
  case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
  case 100: *s = "CUDA_ERROR_NO_DEVICE"; return 0;
  case 209: *s = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return 0;
  case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
  case 700: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
  default: return 1;
  }
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  switch (r) {
  case 100: *s = "no CUDA-capable device is detected"; return 0;
  case 700: *s = "an illegal memory access was encountered"; return 0;
  default: return cuGetErrorName(r, s);
  }
}
