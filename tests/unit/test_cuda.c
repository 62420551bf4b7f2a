/* tests/unit/test_cuda.c: the CUDA driver backend (runtime/cuda.h). Pure parts, no GPU needed:
 * kernel names matched against real mangled names (produced by nvcc 13.0 -arch=sm_90 -cubin from
 * sample kernels and listed with nm; demangled here by the C++ runtime, as the backend does), the
 * architecture read from a cubin's ELF header, host-to-device argument translation, the timing
 * statistics, the checks made before anything runs, the probe's "no GPU" message. End to end,
 * twice: on a fake driver (tests/unit/cuda_fake_driver.c, built here) that runs every step of the
 * child process on the CPU, and on the real GPU when the probe finds one (else those skip): a
 * saxpy and a namespaced template kernel, an illegal address reported by name with its kernel, a
 * hang killed at the time limit, shared memory past 48 KiB granted and past the device's limit
 * refused, unknown kernels and wrong arguments, a cubin for another GPU, and timing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backend/nvcc.h"
#include "base/proc.h"
#include "runtime/cuda.h"
#include "runtime/fill.h"
#include "runtime/fill/kr_fill.h"
#include "runtime/fill_module.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

/* ---- Helpers --------------------------------------------------------------------------------------- */

static char *demangled(const char *mangled) {
  int status = -1;
  char *d = __cxa_demangle(mangled, NULL, NULL, &status);
  if (d && status == 0) return d;
  free(d);
  return strdup(mangled);
}

static char *diag_text(const KrDiags *d) {
  KrBuf b = {0};
  kr_diags_format(d, &b);
  return b.data ? kr_buf_steal(&b) : strdup("");
}

/* Asserts that `d` holds exactly one error and that it contains every given fragment. */
static void expect_error(const KrDiags *d, const char *a, const char *b) {
  char *text = diag_text(d);
  if (d->nerrors != 1 || !strstr(text, a) || (b && !strstr(text, b))) {
    print_error("expected one error with '%s'%s%s%s, got %zu:\n%s\n", a, b ? " and '" : "",
                b ? b : "", b ? "'" : "", d->nerrors, text);
    free(text);
    fail();
  }
  free(text);
}

/* ---- Names ------------------------------------------------------------------------------------------- */

typedef struct NameCase {
  const char *mangled, *launch;
  bool match;
} NameCase;

static const NameCase kNames[] = {
  {"saxpy", "saxpy", true},
  {"saxpy", "saxpy2", false},
  {"_Z5plainPf", "plain", true},
  {"_Z5plainPf", "::plain", true},
  {"_ZN2ns1kEPfi", "ns::k", true},
  {"_ZN2ns1kEPfi", "::ns::k", true},
  {"_ZN2ns1kEPfi", "ns :: k", true},
  {"_ZN2ns1kEPfi", "k", false},
  {"_ZN2ns1kEPfi", "ns::kk", false},
  {"_ZN2ns5inner2k2Ev", "ns::inner::k2", true},
  {"_ZN2ns5inner2k2Ev", "inner::k2", false},
  {"_Z2tkIfLi128EEvPT_", "tk<float, 128>", true},
  {"_Z2tkIfLi128EEvPT_", "tk<float,128>", true},
  {"_Z2tkIfLi128EEvPT_", "tk< float , 128 >", true},
  {"_Z2tkIfLi128EEvPT_", "tk <float, 128>", true},
  {"_Z2tkIfLi128EEvPT_", "tk<float, 0x80>", true},
  {"_Z2tkIfLi128EEvPT_", "tk<float, 129>", false},
  {"_Z2tkIfLi128EEvPT_", "tk<double, 128>", false},
  {"_Z2tkIfLi128EEvPT_", "tk", false},
  {"_Z2tkIfLi128EEvPT_", "tk<float, 12>", false},
  {"_Z2tkIiLin3EEvPT_", "tk<int, -3>", true},
  {"_Z2tkIiLin3EEvPT_", "tk<int,-3>", true},
  {"_Z2tkIiLin3EEvPT_", "tk<int, 3>", false},
  {"_Z2tbILb1ELj4EEvPf", "tb<true, 4>", true},
  {"_Z2tbILb1ELj4EEvPf", "tb<true, 4u>", true},
  {"_Z2tbILb1ELj4EEvPf", "tb<false, 4>", false},
  {"_Z2tcILc97EEvPf", "tc<'a'>", true},
  {"_Z2tcILc97EEvPf", "tc<97>", true},
  {"_Z2tcILc97EEvPf", "tc<'b'>", false},
  {"_Z2tlILl5EEvPf", "tl<5>", true},
  {"_Z2tlILl5EEvPf", "tl<5L>", true},
  {"_Z2tnILj7EEvPf", "tn<7>", true},
  {"_Z2tnILj7EEvPf", "tn<7U>", true},
  {"_Z2tpIPKfEvT_", "tp<const float*>", true},
  {"_Z2tpIPKfEvT_", "tp<float const *>", true},
  {"_Z2tpIPKfEvT_", "tp<float*>", false},
  {"_Z2tpIyEvT_", "tp<unsigned long long>", true},
  {"_Z2tpIyEvT_", "tp<unsigned long long int>", true},
  {"_Z2tpIyEvT_", "tp<unsigned long>", false},
  {"_Z2tuIjEvPT_", "tu<unsigned>", true},
  {"_Z2tuIjEvPT_", "tu<unsigned int>", true},
  {"_Z2tuIjEvPT_", "tu<int>", false},
  {"_Z2t2If1VIiEEvPT_PT0_", "t2<float, V<int>>", true},
  {"_Z2t2If1VIiEEvPT_PT0_", "t2<float, V<int> >", true},
  {"_Z2t2If1VIiEEvPT_PT0_", "t2<float, V<long>>", false},
  {"_Z2tvIdEv1VIT_EPS1_", "tv<double>", true},
  {"_ZN2ns5scaleIfLi3EEEvPT_i", "ns::scale<float, 3>", true},
  {"_ZN2ns5scaleIfLi3EEEvPT_i", "ns::scale<float,3>", true},
};

static void names_match_as_launches_write_them(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; i++) {
    char *d = demangled(kNames[i].mangled);
    bool got = kr_cuda_name_matches(d, kNames[i].launch);
    if (got != kNames[i].match) {
      print_error("'%s' (demangled '%s') vs launch '%s': expected %s\n", kNames[i].mangled, d,
                  kNames[i].launch, kNames[i].match ? "a match" : "no match");
      free(d);
      fail();
    }
    free(d);
  }
}

static void name_pick_prefers_exact_then_unique_loose(void **state) {
  (void)state;
  static const char *const mangled[] = {
    "_ZN2ns1kEPfi", "_Z2tkIfLi128EEvPT_", "_Z2tkIiLin3EEvPT_", "_Z5plainPf", "_Z5plainPi",
    "_Z2tvIdEv1VIT_EPS1_", "saxpy", "_ZN2ns5scaleIfLi3EEEvPT_i",
  };
  enum { N = sizeof mangled / sizeof mangled[0] };
  char *names[N];
  for (size_t i = 0; i < N; i++) names[i] = demangled(mangled[i]);
  const char *const *ns = (const char *const *)names;
  assert_int_equal(kr_cuda_name_pick(ns, N, "saxpy"), 6);
  assert_int_equal(kr_cuda_name_pick(ns, N, "ns::k"), 0);
  assert_int_equal(kr_cuda_name_pick(ns, N, "k"), 0);            /* inside namespace ns */
  assert_int_equal(kr_cuda_name_pick(ns, N, "tk<int, -3>"), 2);
  assert_int_equal(kr_cuda_name_pick(ns, N, "tk"), -2);          /* two instances */
  assert_int_equal(kr_cuda_name_pick(ns, N, "plain"), -2);       /* overloads */
  assert_int_equal(kr_cuda_name_pick(ns, N, "tv"), 5);           /* arguments deduced */
  assert_int_equal(kr_cuda_name_pick(ns, N, "scale<float, 3>"), 7);
  assert_int_equal(kr_cuda_name_pick(ns, N, "scale"), 7);
  assert_int_equal(kr_cuda_name_pick(ns, N, "missing"), -1);
  assert_int_equal(kr_cuda_name_pick(ns, N, "tk<float, 64>"), -1);
  /* An exact match wins over a loose one. */
  const char *both[] = {"ns::k(float*)", "k(float*)"};
  assert_int_equal(kr_cuda_name_pick(both, 2, "k"), 1);
  assert_int_equal(kr_cuda_name_pick(both, 2, "ns::k"), 0);
  for (size_t i = 0; i < N; i++) free(names[i]);
}

/* ---- Cubins ----------------------------------------------------------------------------------------- */

static void cubin_sm_reads_both_elf_layouts(void **state) {
  (void)state;
  unsigned char h[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33, 8};
  h[18] = 190;                                   /* EM_CUDA */
  h[48] = 0x04, h[49] = 0x5a, h[50] = 0x00, h[51] = 0x06;  /* 0x06005a04: nvcc 13, sm_90 */
  assert_int_equal(kr_cuda_cubin_sm(h, sizeof h), 90);
  h[48] = 0x02, h[49] = 0x78;                    /* 0x06007802: sm_120 */
  assert_int_equal(kr_cuda_cubin_sm(h, sizeof h), 120);
  h[8] = 7;                                      /* older ABI: sm in bits 0-7 (0x5a005a) */
  h[48] = 0x5a, h[49] = 0x00, h[50] = 0x5a, h[51] = 0x00;
  assert_int_equal(kr_cuda_cubin_sm(h, sizeof h), 90);
  h[18] = 62;                                    /* x86-64: not a cubin */
  assert_int_equal(kr_cuda_cubin_sm(h, sizeof h), 0);
  assert_int_equal(kr_cuda_cubin_sm(".version 8.0\n.target sm_90\n", 27), 0);
  assert_int_equal(kr_cuda_cubin_sm(h, 10), 0);
  assert_int_equal(kr_cuda_cubin_sm(NULL, 0), 0);
}

/* A host library (a spec's entry built by nvcc -shared) is an ET_DYN ELF of a machine other than
 * EM_CUDA; a cubin (EM_CUDA, whatever its type), an executable, PTX or a short buffer is not. */
static void is_library_reads_the_elf_header(void **state) {
  (void)state;
  unsigned char h[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0};
  h[16] = 3, h[18] = 62;                         /* ET_DYN, x86-64 */
  assert_true(kr_cuda_is_library(h, sizeof h));
  h[18] = 183;                                   /* aarch64 */
  assert_true(kr_cuda_is_library(h, sizeof h));
  h[18] = 190;                                   /* EM_CUDA: a cubin, even of type ET_DYN */
  assert_false(kr_cuda_is_library(h, sizeof h));
  h[18] = 62, h[16] = 2;                         /* ET_EXEC */
  assert_false(kr_cuda_is_library(h, sizeof h));
  h[16] = 3, h[4] = 1;                           /* 32-bit */
  assert_false(kr_cuda_is_library(h, sizeof h));
  h[4] = 2;
  assert_false(kr_cuda_is_library(h, 32));
  assert_false(kr_cuda_is_library(NULL, 0));
  assert_false(kr_cuda_is_library(".version 8.0\n.target sm_90\n", 27));
}

static const char kTinyKernel[] = "extern \"C\" __global__ void one(float *x) { x[0] = 1.0f; }\n";

/* Compiles `text` for `arch` with nvcc into the arena; false when there is no nvcc. */
static bool compile(const char *text, const char *arch, KrArena *a, KrCubin *out) {
  KrDiags *d = kr_diags_new();
  const char *nvcc;
  if (kr_nvcc_find(&nvcc, a, d) != KR_OK) {
    kr_diags_free(d);
    return false;
  }
  KrNvccOptions o = {.arch = arch, .no_cache = true};
  KrStatus st = kr_nvcc_compile("/tmp/kr_test_cuda.cu", text, strlen(text), &o, a, out, d);
  if (st != KR_OK) {
    char *t = diag_text(d);
    print_error("nvcc failed:\n%s\n", t);
    free(t);
  }
  kr_diags_free(d);
  assert_int_equal(st, KR_OK);
  return true;
}

static void cubin_sm_matches_what_nvcc_built(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrCubin c80, c90;
  if (!compile(kTinyKernel, "sm_80", a, &c80)) {
    kr_arena_free(a);
    skip();
  }
  compile(kTinyKernel, "sm_90", a, &c90);
  assert_int_equal(kr_cuda_cubin_sm(c80.data, c80.size), 80);
  assert_int_equal(kr_cuda_cubin_sm(c90.data, c90.size), 90);
  kr_arena_free(a);
}

/* What nvcc builds: with KrNvccOptions.shared a host library with the kernel's ptxas report, else a
 * cubin; kr_cuda_is_library tells them apart. */
static void is_library_tells_nvcc_shared_from_cubin(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrCubin cubin, lib;
  if (!compile(kTinyKernel, "sm_90", a, &cubin)) {
    kr_arena_free(a);
    skip();
  }
  static const char text[] = "extern \"C\" __global__ void one(float *x) { x[0] = 1.0f; }\n"
                             "extern \"C\" int entry(float *x) { one<<<1, 1>>>(x); return 0; }\n";
  KrDiags *d = kr_diags_new();
  KrNvccOptions o = {.arch = "sm_90", .no_cache = true, .shared = true};
  assert_int_equal(kr_nvcc_compile("/tmp/kr_test_entry.cu", text, strlen(text), &o, a, &lib, d), KR_OK);
  kr_diags_free(d);
  assert_false(kr_cuda_is_library(cubin.data, cubin.size));
  assert_true(kr_cuda_is_library(lib.data, lib.size));
  assert_int_equal(kr_cuda_cubin_sm(lib.data, lib.size), 0);
  assert_int_equal(lib.kernels.len, 1);          /* ptxas's report, as for a cubin */
  assert_string_equal(lib.kernels.data[0].name, "one");
  kr_arena_free(a);
}

/* ---- Arguments ------------------------------------------------------------------------------------- */

static void args_translate_maps_host_pointers_to_device(void **state) {
  (void)state;
  float x[8], y[8];                              /* y's buffer is its first 4 elements */
  KrCudaBuffer bufs[] = {{"x", x, sizeof x}, {"y", y, 4 * sizeof(float)}};
  unsigned long long dev[] = {0x700000000000ull, 0x710000000000ull};
  float *px = x, *py_mid = y + 2, *px_end = x + 8;
  int n = 8;
  float alpha = 2.5f;
  void *args[] = {&n, &alpha, &px, &py_mid, &px_end};
  int tie[] = {-1, -1, 0, 1, 0};
  KrCudaLaunch l = {.kernel = "k", .grid = {1, 1, 1}, .block = {1, 1, 1}, .args = args,
                    .arg_buffer = tie, .nargs = 5};
  unsigned long long slots[5] = {0};
  void *params[5] = {0};
  char err[256] = "";
  assert_true(kr_cuda_args_translate(&l, bufs, 2, dev, slots, params, err, sizeof err));
  assert_ptr_equal(params[0], &n);               /* scalars pass through */
  assert_ptr_equal(params[1], &alpha);
  assert_ptr_equal(params[2], &slots[2]);
  assert_true(slots[2] == dev[0]);
  assert_true(slots[3] == dev[1] + 2 * sizeof(float));
  assert_true(slots[4] == dev[0] + sizeof x);    /* one past the end is a valid pointer */

  float *outside = (float *)((uintptr_t)y + 5 * sizeof(float)); /* past the end of y */
  args[3] = &outside;
  assert_false(kr_cuda_args_translate(&l, bufs, 2, dev, slots, params, err, sizeof err));
  assert_non_null(strstr(err, "argument 3 should point into buffer 'y'"));
  args[3] = &px;                                 /* x's address, tied to y */
  assert_false(kr_cuda_args_translate(&l, bufs, 2, dev, slots, params, err, sizeof err));
  args[3] = &py_mid;
  tie[4] = 2;                                    /* no such buffer */
  assert_false(kr_cuda_args_translate(&l, bufs, 2, dev, slots, params, err, sizeof err));
  assert_non_null(strstr(err, "argument 4 is tied to buffer 2, but there are 2 buffers"));
  tie[4] = 0;
  args[1] = NULL;
  assert_false(kr_cuda_args_translate(&l, bufs, 2, dev, slots, params, err, sizeof err));
  assert_non_null(strstr(err, "argument 1 is NULL"));
  /* No arg_buffer: everything is a scalar. */
  args[1] = &alpha;
  l.arg_buffer = NULL;
  assert_true(kr_cuda_args_translate(&l, bufs, 2, dev, slots, params, err, sizeof err));
  assert_ptr_equal(params[2], &px);
}

/* ---- Statistics and options ------------------------------------------------------------------------- */

static void bench_stats_give_median_and_percentiles(void **state) {
  (void)state;
  double odd[] = {5, 1, 4, 2, 3};
  KrBenchTimes t;
  kr_bench_stats(odd, 5, &t);
  assert_int_equal(t.reps, 5);
  assert_true(t.median_ms == 3 && t.min_ms == 1 && t.max_ms == 5);
  assert_true(fabs(t.p10_ms - 1.4) < 1e-12 && fabs(t.p90_ms - 4.6) < 1e-12);
  double even[] = {10, 40, 20, 30};
  kr_bench_stats(even, 4, &t);
  assert_true(t.median_ms == 25 && t.min_ms == 10 && t.max_ms == 40);
  assert_true(fabs(t.p10_ms - 13) < 1e-12 && fabs(t.p90_ms - 37) < 1e-12);
  double one[] = {7};
  kr_bench_stats(one, 1, &t);
  assert_true(t.median_ms == 7 && t.p10_ms == 7 && t.p90_ms == 7 && t.reps == 1);
  KrBenchOptions o = kr_bench_options_default();
  assert_int_equal(o.warmup, 5);
  assert_int_equal(o.min_reps, 50);
  assert_int_equal(o.input_sets, 3);
  assert_true(o.l2_flush_bytes == (size_t)256 << 20 && o.min_seconds == 1.0 && o.timeout_s == 600);
}

/* ---- Checks made before anything runs (no GPU needed) ---------------------------------------------- */

static void run_refuses_bad_launches_and_buffers(void **state) {
  (void)state;
  float *x = kr_emu_alloc(16 * sizeof(float), "x");
  float local[4];
  assert_non_null(x);
  KrCudaBuffer bufs[] = {{"x", x, 16 * sizeof(float)}};
  float *px = x, *far = x + 17;
  void *args[] = {&px};
  int tie[] = {0};
  KrCudaLaunch l = {.kernel = "one", .grid = {1, 1, 1}, .block = {2048, 1, 1}, .args = args,
                    .arg_buffer = tie, .nargs = 1};
  static const char fake[] = "not a cubin";
  KrDiags *d = kr_diags_new();
  assert_int_equal(kr_cuda_run(fake, sizeof fake, &l, 1, bufs, 1, 5, d), KR_ERR);
  expect_error(d, "kernel 'one': launch <<<(1,1,1), (2048,1,1), 0>>> is invalid", "at most 1024");
  kr_diags_free(d);

  l.block.x = 32;
  args[0] = &far;
  d = kr_diags_new();
  assert_int_equal(kr_cuda_run(fake, sizeof fake, &l, 1, bufs, 1, 5, d), KR_ERR);
  expect_error(d, "kernel 'one' (launch 1): argument 0 should point into buffer 'x'", NULL);
  kr_diags_free(d);

  KrCudaBuffer private_buf[] = {{"local", local, sizeof local}};
  float *pl = local;
  args[0] = &pl;
  d = kr_diags_new();
  assert_int_equal(kr_cuda_run(fake, sizeof fake, &l, 1, private_buf, 1, 5, d), KR_ERR);
  expect_error(d, "buffer 'local' is not in shared memory", NULL);
  kr_diags_free(d);

  KrBenchOptions o = kr_bench_options_default();
  o.min_reps = 0;
  KrBenchVariant v = {"only", fake, sizeof fake, &l, 1};
  KrBenchTimes t;
  d = kr_diags_new();
  assert_int_equal(kr_cuda_bench(&v, 1, private_buf, NULL, NULL, 1, &o, &t, d), KR_ERR);
  expect_error(d, "invalid timing options: min_reps", NULL);
  kr_diags_free(d);
  kr_emu_free(x);
}

/* ---- Probe -------------------------------------------------------------------------------------------- */

static void probe_without_the_driver_says_no_gpu(void **state) {
  (void)state;
  const char *old = getenv("KR_CUDA_LIB");
  char *saved = old ? strdup(old) : NULL;
  setenv("KR_CUDA_LIB", "/nonexistent/libcuda.so.1", 1);
  KrDiags *d = kr_diags_new();
  char name[64] = "unchanged";
  assert_int_equal(kr_cuda_probe(name, sizeof name, NULL, NULL, d), KR_ERR);
  expect_error(d, "no GPU: /nonexistent/libcuda.so.1 not found", NULL);
  assert_string_equal(name, "unchanged");
  kr_diags_free(d);
  if (saved) setenv("KR_CUDA_LIB", saved, 1);
  else unsetenv("KR_CUDA_LIB");
  free(saved);
}

/* On this machine, whatever it has: a device with a name, or one clear "no GPU" error. */
static void probe_reports_a_device_or_no_gpu(void **state) {
  (void)state;
  KrDiags *d = kr_diags_new();
  char name[256] = "";
  int major = 0, minor = -1;
  KrStatus st = kr_cuda_probe(name, sizeof name, &major, &minor, d);
  if (st == KR_OK) {
    assert_int_equal(d->nerrors, 0);
    assert_true(name[0] != 0 && major >= 3 && minor >= 0);
  } else {
    expect_error(d, "no GPU: ", NULL);
  }
  kr_diags_free(d);
}

/* ---- End to end: on the GPU, and on the fake driver ------------------------------------------------
 * The same tests run twice: against tests/unit/cuda_fake_driver.c (compiled here with cc and
 * opened through KR_CUDA_LIB), which drives every step of the child process without a GPU, and
 * against the real driver, where they skip unless the probe finds a GPU. */

static const char kKernels[] =
  "#include <stdint.h>\n"
  "extern \"C\" __global__ void saxpy(int n, float a, const float *x, float *y) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) y[i] = a * x[i] + y[i];\n"
  "}\n"
  "namespace ns {\n"
  "template <typename T, int B> __global__ void scale(T *x, int n) {\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) x[i] *= (T)B;\n"
  "}\n"
  "template __global__ void scale<float, 3>(float *, int);\n"
  "template __global__ void scale<float, 5>(float *, int);\n"
  "}\n"
  "extern \"C\" __global__ void bad_write(float *x) {\n"
  "  float *p = (float *)(((uintptr_t)x & 0xfff) | 0x1000);  /* page 1: never mapped */\n"
  "  p[threadIdx.x] = 1.0f;\n"
  "}\n"
  "extern \"C\" __global__ void spin(volatile int *flag) {\n"
  "  while (*flag == 0) {}\n"
  "}\n"
  "__device__ int g_count;\n"
  "extern \"C\" __global__ void counter(int *out) { out[0] = ++g_count; }\n"
  "extern \"C\" __global__ void big_smem(float *out, int n) {\n"
  "  extern __shared__ float s[];\n"
  "  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = (float)i;\n"
  "  __syncthreads();\n"
  "  if (threadIdx.x == 0) out[0] = s[n - 1];\n"
  "}\n";

/* The fake driver's "cubin": the same kernels, by their mangled names. */
static const char kFakeCubin[] = "FAKE\nsaxpy\n_ZN2ns5scaleIfLi3EEEvPT_i\n_ZN2ns5scaleIfLi5EEEvPT_i\n"
                                 "bad_write\nspin\nbig_smem\ncounter\n";

static const char kFakeFill[] = "FAKE\nkr_fill\nkr_fill_check\n";

/* An ELF header as nvcc 13 writes it for sm_80. */
static const unsigned char kSm80Header[64] = {
  0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33, 8, [18] = 190, [48] = 0x04, 0x50, 0x00, 0x06,
};

typedef struct Target {
  bool present;
  int major, minor;
  KrArena *arena;
  const void *cubin, *other;   /* the kernels; a cubin for another GPU */
  size_t size, other_size;
  const char *other_arch;
  const void *fill;            /* the fill module (runtime/fill/kr_fill.cu) */
  size_t fill_size;
  char fake_dir[64];           /* the fake driver's folder, or "" */
} Target;

static Target g_gpu, g_fake;

static int gpu_setup(void **state) {
  Target *t = &g_gpu;
  *state = t;
  KrDiags *d = kr_diags_new();
  t->present = kr_cuda_probe(NULL, 0, &t->major, &t->minor, d) == KR_OK;
  kr_diags_free(d);
  if (!t->present) return 0;
  t->arena = kr_arena_new();
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%d%d", t->major, t->minor);
  KrCubin k, o;
  t->other_arch = t->major == 8 ? "sm_90" : "sm_80";
  if (!compile(kKernels, arch, t->arena, &k) || !compile(kTinyKernel, t->other_arch, t->arena, &o)) {
    print_error("a GPU is present but nvcc is not: the GPU tests cannot run\n");
    return -1;
  }
  t->cubin = k.data, t->size = k.size, t->other = o.data, t->other_size = o.size;
  KrCubin f;
  KrDiags *fd = kr_diags_new();
  bool fill_built = kr__fill_module_build(arch, t->arena, &f, fd) == KR_OK;
  kr_diags_free(fd);
  if (!fill_built) {
    print_error("the fill module does not compile\n");
    return -1;
  }
  t->fill = f.data, t->fill_size = f.size;
  return 0;
}

static int fake_setup(void **state) {
  Target *t = &g_fake;
  *state = t;
  snprintf(t->fake_dir, sizeof t->fake_dir, "/tmp/kr-test-cuda.XXXXXX");
  if (!mkdtemp(t->fake_dir)) return -1;
  char lib[128], src[512];
  snprintf(lib, sizeof lib, "%s/libcuda.so.1", t->fake_dir);
  snprintf(src, sizeof src, "%s/tests/unit/cuda_fake_driver.c", KR_SOURCE_DIR);
  const char *argv[] = {"cc", "-shared", "-fPIC", "-O1", "-ffp-contract=off", "-I", KR_SOURCE_DIR, "-o", lib, src, NULL};
  KrBuf out = {0};
  KrProcResult res;
  KrStatus st = kr_proc_run(argv, NULL, 120, &out, NULL, &res);
  bool built = st == KR_OK && !res.timed_out && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0;
  if (!built) print_error("cannot build the fake driver:\n%s\n", out.data ? out.data : "");
  kr_buf_free(&out);
  if (!built) return -1;
  setenv("KR_CUDA_LIB", lib, 1);
  t->present = true;
  t->major = 9, t->minor = 0;
  t->cubin = kFakeCubin, t->size = sizeof kFakeCubin;
  t->other = kSm80Header, t->other_size = sizeof kSm80Header, t->other_arch = "sm_80";
  t->fill = kFakeFill, t->fill_size = sizeof kFakeFill;
  return 0;
}

static int teardown(void **state) {
  Target *t = *state;
  if (t->arena) kr_arena_free(t->arena);
  if (t->fake_dir[0]) {
    unsetenv("KR_CUDA_LIB");
    kr_dir_remove(t->fake_dir);
  }
  return 0;
}

static const Target *need_target(void **state) {
  const Target *t = *state;
  if (!t->present) skip();
  return t;
}

static KrStatus run(const Target *t, const KrCudaLaunch *l, size_t n, KrCudaBuffer *b, size_t nb,
                    double timeout, KrDiags *d) {
  return kr_cuda_run(t->cubin, t->size, l, n, b, nb, timeout, d);
}

static void saxpy_then_scale_compute_the_right_values(void **state) {
  const Target *t = need_target(state);
  int n = 1000;
  float a = 2.0f;
  float *x = kr_emu_alloc((size_t)n * sizeof(float), "x");
  float *y = kr_emu_alloc((size_t)n * sizeof(float), "y");
  for (int i = 0; i < n; i++) x[i] = (float)i, y[i] = 1.0f + (float)(i % 7);
  KrCudaBuffer bufs[] = {{"x", x, (size_t)n * sizeof(float)}, {"y", y, (size_t)n * sizeof(float)}};
  void *sargs[] = {&n, &a, &x, &y};
  int stie[] = {-1, -1, 0, 1};
  void *cargs[] = {&y, &n};
  int ctie[] = {1, -1};
  KrCudaLaunch l[] = {
    {"saxpy", {4, 1, 1}, {256, 1, 1}, 0, sargs, stie, 4},
    {"ns::scale<float,3>", {4, 1, 1}, {256, 1, 1}, 0, cargs, ctie, 2},
  };
  KrDiags *d = kr_diags_new();
  assert_int_equal(run(t, l, 2, bufs, 2, 30, d), KR_OK);
  assert_int_equal(d->nerrors, 0);
  for (int i = 0; i < n; i++) {
    assert_true(x[i] == (float)i);               /* the input came back unchanged */
    assert_true(y[i] == 3.0f * (2.0f * (float)i + 1.0f + (float)(i % 7)));
  }
  kr_diags_free(d);
  kr_emu_free(x);
  kr_emu_free(y);
}

static void illegal_address_is_reported_with_its_kernel(void **state) {
  const Target *t = need_target(state);
  float *x = kr_emu_alloc(64, "x");
  KrCudaBuffer bufs[] = {{"x", x, 64}};
  void *args[] = {&x};
  int tie[] = {0};
  KrCudaLaunch l = {"bad_write", {1, 1, 1}, {32, 1, 1}, 0, args, tie, 1};
  KrDiags *d = kr_diags_new();
  assert_int_equal(run(t, &l, 1, bufs, 1, 30, d), KR_ERR);
  expect_error(d, "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered",
               "in kernel 'bad_write'");
  kr_diags_free(d);
  kr_emu_free(x);
}

static void hang_is_killed_at_the_time_limit(void **state) {
  const Target *t = need_target(state);
  int *flag = kr_emu_alloc(sizeof(int), "flag");
  *flag = 0;
  KrCudaBuffer bufs[] = {{"flag", flag, sizeof(int)}};
  void *args[] = {&flag};
  int tie[] = {0};
  KrCudaLaunch l = {"spin", {1, 1, 1}, {1, 1, 1}, 0, args, tie, 1};
  KrDiags *d = kr_diags_new();
  double t0 = kr_now_s();
  assert_int_equal(run(t, &l, 1, bufs, 1, 2, d), KR_ERR);
  assert_true(kr_now_s() - t0 < 20);
  expect_error(d, "did not finish within 2 s while running kernel 'spin'", "killed");
  kr_diags_free(d);
  kr_emu_free(flag);
}

static void shared_memory_over_48k_is_granted_and_over_the_limit_refused(void **state) {
  const Target *t = need_target(state);
  float *out = kr_emu_alloc(sizeof(float), "out");
  *out = -1.0f;
  int n = 25000;                                 /* 100,000 bytes: past the 48 KiB default */
  KrCudaBuffer bufs[] = {{"out", out, sizeof(float)}};
  void *args[] = {&out, &n};
  int tie[] = {0, -1};
  KrCudaLaunch l = {"big_smem", {1, 1, 1}, {256, 1, 1}, (size_t)n * sizeof(float), args, tie, 2};
  KrDiags *d = kr_diags_new();
  assert_int_equal(run(t, &l, 1, bufs, 1, 30, d), KR_OK);
  assert_true(*out == (float)(n - 1));
  kr_diags_free(d);
  l.shmem = 400 * 1024;
  d = kr_diags_new();
  assert_int_equal(run(t, &l, 1, bufs, 1, 30, d), KR_ERR);
  expect_error(d, "kernel 'big_smem' asks for 409600 bytes of dynamic shared memory", "at most");
  kr_diags_free(d);
  kr_emu_free(out);
}

static void unknown_kernel_lists_what_the_cubin_has(void **state) {
  const Target *t = need_target(state);
  float *x = kr_emu_alloc(64, "x");
  KrCudaBuffer bufs[] = {{"x", x, 64}};
  int n = 16;
  void *args[] = {&x, &n};
  int tie[] = {0, -1};
  KrCudaLaunch l = {"ns::scale<float, 4>", {1, 1, 1}, {32, 1, 1}, 0, args, tie, 2};
  KrDiags *d = kr_diags_new();
  assert_int_equal(run(t, &l, 1, bufs, 1, 30, d), KR_ERR);
  expect_error(d, "kernel 'ns::scale<float, 4>' is not in the cubin", "ns::scale<float, 3>");
  kr_diags_free(d);
  l.kernel = "ns::scale";                        /* two instances */
  d = kr_diags_new();
  assert_int_equal(run(t, &l, 1, bufs, 1, 30, d), KR_ERR);
  expect_error(d, "kernel 'ns::scale' is ambiguous", NULL);
  kr_diags_free(d);
  l.kernel = "saxpy";                            /* its first parameter is an int */
  d = kr_diags_new();
  assert_int_equal(run(t, &l, 1, bufs, 1, 30, d), KR_ERR);
  expect_error(d, "kernel 'saxpy': argument 0 is tied to a buffer", "4 bytes, not a pointer");
  kr_diags_free(d);
  /* One argument too many. (Too few is caught before this level, against the kernel's
   * declaration in the source; asking the driver past the last parameter is an API error.) */
  void *args5[] = {&n, &n, &x, &x, &n};
  int tie5[] = {-1, -1, 0, 0, -1};
  KrCudaLaunch l5 = {"saxpy", {1, 1, 1}, {32, 1, 1}, 0, args5, tie5, 5};
  d = kr_diags_new();
  assert_int_equal(run(t, &l5, 1, bufs, 1, 30, d), KR_ERR);
  expect_error(d, "kernel 'saxpy' takes 4 arguments, but the launch passes 5", NULL);
  kr_diags_free(d);
  kr_emu_free(x);
}

static void cubin_for_another_gpu_is_named(void **state) {
  const Target *t = need_target(state);
  float *x = kr_emu_alloc(64, "x");
  KrCudaBuffer bufs[] = {{"x", x, 64}};
  void *args[] = {&x};
  int tie[] = {0};
  KrCudaLaunch l = {"one", {1, 1, 1}, {1, 1, 1}, 0, args, tie, 1};
  KrDiags *d = kr_diags_new();
  assert_int_equal(kr_cuda_run(t->other, t->other_size, &l, 1, bufs, 1, 30, d), KR_ERR);
  char want[96];
  snprintf(want, sizeof want, "the cubin was built for %s but the GPU is sm_%d%d", t->other_arch,
           t->major, t->minor);
  expect_error(d, want, NULL);
  kr_diags_free(d);
  kr_emu_free(x);
}

static void bench_gives_sane_times(void **state) {
  const Target *t = need_target(state);
  int n = 1 << 22;
  float a = 0.5f;
  size_t bytes = (size_t)n * sizeof(float);
  float *x = kr_emu_alloc(bytes, "x"), *y = kr_emu_alloc(bytes, "y");
  for (int i = 0; i < n; i++) x[i] = (float)(i % 101), y[i] = 1.0f;
  KrCudaBuffer bufs[] = {{"x", x, bytes}, {"y", y, bytes}};
  bool is_input[] = {true, false}, is_inout[] = {false, true};
  void *args[] = {&n, &a, &x, &y};
  int tie[] = {-1, -1, 0, 1};
  KrCudaLaunch l = {"saxpy", {(unsigned)(n / 256), 1, 1}, {256, 1, 1}, 0, args, tie, 4};
  KrBenchVariant v[] = {{"first", t->cubin, t->size, &l, 1}, {"second", t->cubin, t->size, &l, 1}};
  KrBenchOptions o = {.warmup = 2, .min_reps = 20, .min_seconds = 0.2, .input_sets = 2,
                      .l2_flush_bytes = (size_t)128 << 20, .timeout_s = 120};
  KrBenchTimes times[2];
  KrDiags *d = kr_diags_new();
  KrStatus st = kr_cuda_bench(v, 2, bufs, is_input, is_inout, 2, &o, times, d);
  if (st != KR_OK) {
    char *text = diag_text(d);
    print_error("%s\n", text);
    free(text);
  }
  assert_int_equal(st, KR_OK);
  for (int i = 0; i < 2; i++) {
    const KrBenchTimes *r = &times[i];
    print_message("variant %d: median %.4f ms, min %.4f, p10 %.4f, p90 %.4f, max %.4f, %d reps\n",
                  i, r->median_ms, r->min_ms, r->p10_ms, r->p90_ms, r->max_ms, r->reps);
    assert_true(r->reps >= 20 && r->reps == times[1 - i].reps);
    assert_true(r->min_ms > 0 && r->min_ms <= r->p10_ms && r->p10_ms <= r->median_ms);
    assert_true(r->median_ms <= r->p90_ms && r->p90_ms <= r->max_ms);
    assert_true(r->median_ms < 50);              /* 48 MiB moved: ~0.02 ms on an H200 */
  }
  assert_true(y[0] == 1.0f);                     /* timing copies nothing back */
  kr_diags_free(d);

  /* A failing variant is named. */
  KrCudaLaunch bad = {"bad_write", {1, 1, 1}, {32, 1, 1}, 0, &args[2], &tie[2], 1};
  KrBenchVariant vb[] = {{"broken", t->cubin, t->size, &bad, 1}};
  d = kr_diags_new();
  assert_int_equal(kr_cuda_bench(vb, 1, bufs, is_input, NULL, 2, &o, times, d), KR_ERR);
  expect_error(d, "CUDA_ERROR_ILLEGAL_ADDRESS", "in kernel 'bad_write' of variant 'broken'");
  kr_diags_free(d);
  kr_emu_free(x);
  kr_emu_free(y);
}

/* ---- One GPU child for many runs (kr_cuda_server_*) ---------------------------------------------- */

typedef union Slot {
  void *p;
  int i;
  float f;
  unsigned long long u;
} Slot;

static KrCudaServer *server(const Target *t, double timeout, KrDiags *d) {
  KrCudaServerModule mods[] = {{t->cubin, t->size, "reference"}, {t->cubin, t->size, "candidate"}};
  KrCudaServer *s = NULL;
  assert_int_equal(kr_cuda_server_start(mods, 2, 1 << 20, timeout, &s, d), KR_OK);
  assert_non_null(s);
  return s;
}

/* counter's __device__ variable counts the launches this child ran: state carries from one
 * request to the next in one process, in either module's own copy. */
static int count(KrCudaServer *s, size_t module, KrDiags *d) {
  int *out = kr_cuda_server_alloc(s, sizeof(int));
  assert_non_null(out);
  *out = -1;
  Slot a[] = {{.p = out}};
  void *args[] = {&a[0]};
  int tie[] = {0};
  KrCudaLaunch l = {"counter", {1, 1, 1}, {1, 1, 1}, 0, args, tie, 1};
  KrCudaBuffer b = {"out", out, sizeof(int)};
  KrStatus st = kr_cuda_server_run(s, module, &l, 1, &b, 1, NULL, d);
  int v = st == KR_OK ? *out : -1;
  kr_cuda_server_reset(s);
  return v;
}

static void server_runs_many_requests_in_one_child(void **state) {
  const Target *t = need_target(state);
  KrDiags *d = kr_diags_new();
  KrCudaServer *s = server(t, 30, d);
  int n = 1000;
  for (int round = 0; round < 3; round++) {
    float *x = kr_cuda_server_alloc(s, (size_t)n * sizeof(float));
    float *y = kr_cuda_server_alloc(s, (size_t)n * sizeof(float));
    assert_non_null(x);
    assert_non_null(y);
    for (int i = 0; i < n; i++) x[i] = (float)i, y[i] = (float)round;
    Slot a[] = {{.i = n}, {.f = 2.0f}, {.p = x}, {.p = y}};
    void *args[] = {&a[0], &a[1], &a[2], &a[3]};
    int tie[] = {-1, -1, 0, 1};
    KrCudaLaunch l = {"saxpy", {4, 1, 1}, {256, 1, 1}, 0, args, tie, 4};
    KrCudaBuffer b[] = {{"x", x, (size_t)n * sizeof(float)}, {"y", y, (size_t)n * sizeof(float)}};
    assert_int_equal(kr_cuda_server_run(s, (size_t)round % 2, &l, 1, b, 2, NULL, d), KR_OK);
    for (int i = 0; i < n; i++) assert_true(y[i] == 2.0f * (float)i + (float)round);
    kr_cuda_server_reset(s);
  }
  assert_int_equal(count(s, 0, d), 1);
  assert_int_equal(count(s, 0, d), 2);   /* the same process: the variable kept its value */
  assert_int_equal(count(s, 1, d), 1);   /* the other module has its own */
  assert_int_equal(d->nerrors, 0);
  kr_cuda_server_free(s);
  kr_diags_free(d);
}

static void server_replaces_a_child_after_a_failure_and_a_hang(void **state) {
  const Target *t = need_target(state);
  KrDiags *d = kr_diags_new();
  KrCudaServer *s = server(t, 2, d);
  assert_int_equal(count(s, 0, d), 1);
  float *x = kr_cuda_server_alloc(s, 64);
  Slot a[] = {{.p = x}};
  void *args[] = {&a[0]};
  int tie[] = {0};
  KrCudaLaunch bad = {"bad_write", {1, 1, 1}, {32, 1, 1}, 0, args, tie, 1};
  KrCudaBuffer b = {"x", x, 64};
  bool hung = true;
  assert_int_equal(kr_cuda_server_run(s, 0, &bad, 1, &b, 1, &hung, d), KR_ERR);
  assert_false(hung);
  expect_error(d, "CUDA_ERROR_ILLEGAL_ADDRESS", "in kernel 'bad_write'");
  kr_diags_free(d);
  d = kr_diags_new();
  kr_cuda_server_reset(s);
  assert_int_equal(count(s, 0, d), 1);   /* a fresh child: its variable starts again */
  int *flag = kr_cuda_server_alloc(s, sizeof(int));
  *flag = 0;
  a[0].p = flag;
  KrCudaLaunch spin = {"spin", {1, 1, 1}, {1, 1, 1}, 0, args, tie, 1};
  KrCudaBuffer fb = {"flag", flag, sizeof(int)};
  double t0 = kr_now_s();
  assert_int_equal(kr_cuda_server_run(s, 0, &spin, 1, &fb, 1, &hung, d), KR_ERR);
  assert_true(hung);
  assert_true(kr_now_s() - t0 < 20);
  expect_error(d, "did not finish within 2 s while running kernel 'spin'", "killed");
  kr_diags_free(d);
  d = kr_diags_new();
  kr_cuda_server_reset(s);
  assert_int_equal(count(s, 0, d), 1);
  assert_int_equal(d->nerrors, 0);
  kr_cuda_server_free(s);
  kr_diags_free(d);
}

static void server_refuses_buffers_outside_its_pool(void **state) {
  const Target *t = need_target(state);
  KrDiags *d = kr_diags_new();
  KrCudaServer *s = server(t, 30, d);
  float *x = kr_emu_alloc(64, "x");
  Slot a[] = {{.p = x}};
  void *args[] = {&a[0]};
  int tie[] = {0};
  KrCudaLaunch l = {"bad_write", {1, 1, 1}, {1, 1, 1}, 0, args, tie, 1};
  KrCudaBuffer b = {"x", x, 64};
  assert_int_equal(kr_cuda_server_run(s, 0, &l, 1, &b, 1, NULL, d), KR_ERR);
  expect_error(d, "buffer 'x' is not in the GPU process's pool", "kr_cuda_server_alloc");
  assert_null(kr_cuda_server_alloc(s, (size_t)2 << 20));   /* more than the pool */
  kr_emu_free(x);
  kr_cuda_server_free(s);
  kr_diags_free(d);
}

/* Buffers kept on the device: every fill kind and element type made there holds the host's
 * values bit for bit; a check finds the first element changed; poison patterns; a resident run
 * works on what the device holds, and after the child ended nothing claims to read it. */
static void server_fills_checks_and_poisons_on_the_device(void **state) {
  const Target *t = need_target(state);
  KrDiags *d = kr_diags_new();
  KrCudaServerModule mods[] = {{t->cubin, t->size, "reference"}, {t->fill, t->fill_size, "fill"}};
  KrCudaServer *s = NULL;
  assert_int_equal(kr_cuda_server_start(mods, 2, 4 << 20, 30, &s, d), KR_OK);
  size_t n = 70001;
  static const KrFillKind kinds[] = {KR_FILL_UNIFORM, KR_FILL_NORMAL, KR_FILL_INTS, KR_FILL_ZERO};
  for (int dt = KR_DT_F32; dt <= KR_DT_I64; dt++)
    for (size_t k = 0; k < 4; k++) {
      size_t bytes = n * kr_dtype_size((KrDtype)dt);
      void *dev = kr_cuda_server_alloc(s, bytes), *back = kr_cuda_server_alloc(s, bytes), *host = malloc(bytes);
      assert_non_null(dev);
      double a = kinds[k] == KR_FILL_NORMAL ? 0.5 : -7, b = kinds[k] == KR_FILL_NORMAL ? 2 : 9;
      kr_fill_generate(host, (KrDtype)dt, n, kinds[k], a, b, 3, 5);
      KrCudaData ops[] = {
        {.kind = KR_CUDA_DATA_FILL, .name = "x", .host = dev, .bytes = bytes, .key = kr_gen_key(3, 5),
         .count = n, .a = a, .b = b, .gen = kr_fill_gen_kind(kinds[k]), .dtype = dt},
        {.kind = KR_CUDA_DATA_CHECK, .name = "x", .host = dev, .bytes = bytes, .key = kr_gen_key(3, 5),
         .count = n, .a = a, .b = b, .gen = kr_fill_gen_kind(kinds[k]), .dtype = dt},
        {.kind = KR_CUDA_DATA_DOWNLOAD, .name = "x", .host = dev, .bytes = bytes, .to = back},
      };
      assert_int_equal(kr_cuda_server_data(s, 1, ops, 3, d), KR_OK);
      assert_true(ops[1].first_diff == UINT64_MAX);
      assert_memory_equal(back, host, bytes);
      /* One element changed on the device (uploaded from the host): the check names it. */
      memcpy(dev, host, bytes);
      ((unsigned char *)dev)[4321 * kr_dtype_size((KrDtype)dt)] ^= 1;
      KrCudaData again[] = {{.kind = KR_CUDA_DATA_UPLOAD, .name = "x", .host = dev, .bytes = bytes}, ops[1]};
      assert_int_equal(kr_cuda_server_data(s, 1, again, 2, d), KR_OK);
      assert_int_equal(again[1].first_diff, 4321);
      free(host);
      kr_cuda_server_reset(s);
    }
  /* Poison: NaN patterns as the host writes them; a saxpy run resident on them. */
  float *x = kr_cuda_server_alloc(s, 1000 * sizeof(float)), *y = kr_cuda_server_alloc(s, 1000 * sizeof(float));
  uint16_t *h = kr_cuda_server_alloc(s, 10 * sizeof(uint16_t)), host_h[10];
  kr_fill_poison(host_h, KR_DT_BF16, 10);
  for (int i = 0; i < 1000; i++) x[i] = (float)i;
  KrCudaData prep[] = {
    {.kind = KR_CUDA_DATA_UPLOAD, .name = "x", .host = x, .bytes = 1000 * sizeof(float)},
    {.kind = KR_CUDA_DATA_SET, .name = "y", .host = y, .bytes = 1000 * sizeof(float), .pattern = 0, .pattern_size = 4},
    {.kind = KR_CUDA_DATA_SET, .name = "h", .host = h, .bytes = 10 * sizeof(uint16_t), .pattern = KR_GEN_POISON_BF16, .pattern_size = 2},
    {.kind = KR_CUDA_DATA_DOWNLOAD, .name = "h", .host = h, .bytes = 10 * sizeof(uint16_t)},
  };
  memset(y, 0x77, 1000 * sizeof(float));
  assert_int_equal(kr_cuda_server_data(s, 1, prep, 4, d), KR_OK);
  assert_memory_equal(h, host_h, sizeof host_h);
  Slot sa[] = {{.i = 1000}, {.f = 2.0f}, {.p = x}, {.p = y}};
  void *args[] = {&sa[0], &sa[1], &sa[2], &sa[3]};
  int tie[] = {-1, -1, 0, 1};
  KrCudaLaunch l = {"saxpy", {4, 1, 1}, {256, 1, 1}, 0, args, tie, 4};
  KrCudaBuffer bufs[] = {{"x", x, 1000 * sizeof(float)}, {"y", y, 1000 * sizeof(float)}};
  assert_int_equal(kr_cuda_server_run_resident(s, 0, &l, 1, bufs, 2, NULL, d), KR_OK);
  for (int i = 0; i < 1000; i++) assert_true(y[i] != 2.0f * (float)i);   /* nothing came back */
  KrCudaData get = {.kind = KR_CUDA_DATA_DOWNLOAD, .name = "y", .host = y, .bytes = 1000 * sizeof(float)};
  assert_int_equal(kr_cuda_server_data(s, 1, &get, 1, d), KR_OK);
  for (int i = 0; i < 1000; i++) assert_true(y[i] == 2.0f * (float)i);
  assert_int_equal(d->nerrors, 0);
  /* A kernel that faults ends the child: the device's copies are gone, and a read says so. */
  Slot ba[] = {{.p = x}};
  void *bargs[] = {&ba[0]};
  int btie[] = {0};
  KrCudaLaunch bad = {"bad_write", {1, 1, 1}, {32, 1, 1}, 0, bargs, btie, 1};
  assert_int_equal(kr_cuda_server_run_resident(s, 0, &bad, 1, bufs, 1, NULL, d), KR_ERR);
  kr_diags_free(d);
  d = kr_diags_new();
  assert_int_equal(kr_cuda_server_data(s, 1, &get, 1, d), KR_ERR);
  expect_error(d, "the GPU process has ended since the buffers were put on the device", NULL);
  kr_cuda_server_free(s);
  kr_diags_free(d);
}

/* The fake device says 100 MiB are free; a pool of 1 GiB is refused before anything runs. */
static void server_refuses_a_pool_the_gpu_cannot_hold(void **state) {
  const Target *t = need_target(state);
  if (!t->fake_dir[0]) skip();
  setenv("KR_FAKE_CUDA_FREE_MIB", "100", 1);
  KrDiags *d = kr_diags_new();
  KrCudaServerModule mods[] = {{t->cubin, t->size, "reference"}};
  KrCudaServer *s = NULL;
  assert_int_equal(kr_cuda_server_start(mods, 1, (size_t)1 << 30, 30, &s, d), KR_ERR);
  assert_null(s);
  expect_error(d, "need 1024.0 MiB of GPU memory", "100.0 MiB free");
  unsetenv("KR_FAKE_CUDA_FREE_MIB");
  kr_diags_free(d);
}

static void probe_names_the_device(void **state) {
  const Target *t = need_target(state);
  KrDiags *d = kr_diags_new();
  char name[256] = "";
  int major = 0, minor = -1;
  assert_int_equal(kr_cuda_probe(name, sizeof name, &major, &minor, d), KR_OK);
  assert_true(name[0] != 0);
  assert_int_equal(major, t->major);
  assert_int_equal(minor, t->minor);
  /* the symbol `sms` of launch changes: the fake device's 132, or a real one's */
  if (t->fake_dir[0]) assert_int_equal(kr_cuda_sms(), 132);
  else assert_true(kr_cuda_sms() > 0);
  kr_diags_free(d);
}

int main(void) {
  const struct CMUnitTest pure[] = {
    cmocka_unit_test(names_match_as_launches_write_them),
    cmocka_unit_test(name_pick_prefers_exact_then_unique_loose),
    cmocka_unit_test(cubin_sm_reads_both_elf_layouts),
    cmocka_unit_test(cubin_sm_matches_what_nvcc_built),
    cmocka_unit_test(is_library_reads_the_elf_header),
    cmocka_unit_test(is_library_tells_nvcc_shared_from_cubin),
    cmocka_unit_test(args_translate_maps_host_pointers_to_device),
    cmocka_unit_test(bench_stats_give_median_and_percentiles),
    cmocka_unit_test(run_refuses_bad_launches_and_buffers),
    cmocka_unit_test(probe_without_the_driver_says_no_gpu),
    cmocka_unit_test(probe_reports_a_device_or_no_gpu),
  };
  const struct CMUnitTest end_to_end[] = {
    cmocka_unit_test(probe_names_the_device),
    cmocka_unit_test(saxpy_then_scale_compute_the_right_values),
    cmocka_unit_test(illegal_address_is_reported_with_its_kernel),
    cmocka_unit_test(hang_is_killed_at_the_time_limit),
    cmocka_unit_test(shared_memory_over_48k_is_granted_and_over_the_limit_refused),
    cmocka_unit_test(unknown_kernel_lists_what_the_cubin_has),
    cmocka_unit_test(cubin_for_another_gpu_is_named),
    cmocka_unit_test(bench_gives_sane_times),
    cmocka_unit_test(server_runs_many_requests_in_one_child),
    cmocka_unit_test(server_replaces_a_child_after_a_failure_and_a_hang),
    cmocka_unit_test(server_refuses_buffers_outside_its_pool),
    cmocka_unit_test(server_refuses_a_pool_the_gpu_cannot_hold),
    cmocka_unit_test(server_fills_checks_and_poisons_on_the_device),
  };
  int failed = cmocka_run_group_tests_name("pure", pure, NULL, NULL);
  failed += cmocka_run_group_tests_name("fake_driver", end_to_end, fake_setup, teardown);
  failed += cmocka_run_group_tests_name("gpu", end_to_end, gpu_setup, teardown);
  return failed;
}
