/* tests/unit/test_emu.c: the CPU emulator (runtime/emu.h): kernels from tests/emu/ built with
 * g++ against the shim and run in a child process, with results checked against plain C, and the
 * errors it must report (out of bounds, hangs, deadlocks, crashes, inline PTX it does not run, g++
 * errors); the inline PTX it runs (mma.sync, ldmatrix, cvt) against references in double. The
 * modules are built once, into a fresh cache folder, by the group setup. */
#define _GNU_SOURCE /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/emu.h"

static char g_cache[] = "/tmp/kr-test-emu.XXXXXX";
static KrEmuModule *g_basics, *g_lowp, *g_check, *g_streams, *g_cluster, *g_ptx;

static const char *const kBasics[] = {
  "saxpy", "block_sum", "block_sum_racy", "warp_sum", "shuffles_and_votes", "atomics",
  "histogram", "reverse_chunks", "dyn_align",
  "tk<float, 4>", "write_past_end", "read_past_end", "spin", "divergent_barrier", "null_write",
  "traps", "asserts",
};
static const char *const kCheck[] = {
  "copy_n", "read_one_past", "read_before_start", "uninit_shared", "init_shared", "carried_shared",
  "carried_dynamic", "lost_update", "cross_block", "atomic_sum", "reduce_sync",
  "reduce_warp_unsynced", "reduce_warp_synced", "reduce_shuffle", "warp_exchange", "chatty",
  "shared_past_end", "shared_in_template<float, 32>", "shared_kinds",
};
static const char *const kStreams[] = {"add_all"};
static const char *const kCluster[] = {"cluster_row_sum", "cluster_dynamic", "cluster_half_sync", "cluster_of_one",
                                       "cluster_split_barrier", "cluster_wait_unarrived", "resident_grid_barrier",
                                       "resident_wait_forever", "cluster_push"};
static const char *const kLowp[] = {
  "half2_axpy", "bf16_ops", "conversions", "wmma_tile", "pipelined_scale", "zfill_copy", "tile_sums",
};
static const char *const kPtx[] = {
  "mma_tf32", "mma_bf16", "mma_f16", "mma_half_warp", "ldmatrix_forms", "ldmatrix_checked", "cvt_tf32", "wgmma_async",
};

/* ---- Helpers --------------------------------------------------------------------------------------- */

static char *read_text(KrArena *a, const char *name, size_t *len) {
  char *path = kr_arena_printf(a, "%s/tests/emu/%s", KR_SOURCE_DIR, name);
  char *text;
  KrDiags *d = kr_diags_new();
  KrStatus st = kr_file_read(path, a, &text, len, d);
  kr_diags_free(d);
  assert_int_equal(st, KR_OK);
  return text;
}

/* Builds tests/emu/<name>; returns the status and leaves the diagnostics in *d. */
static KrStatus build(const char *name, const char *const *kernels, size_t n, KrEmuModule **m,
                      KrDiags *d) {
  KrArena *a = kr_arena_new();
  size_t len;
  char *text = read_text(a, name, &len);
  char *path = kr_arena_printf(a, "%s/tests/emu/%s", KR_SOURCE_DIR, name);
  KrStatus st = kr_emu_build(path, text, len, kernels, n, g_cache, m, d);
  kr_arena_free(a);
  return st;
}

static char *diag_text(const KrDiags *d) {
  KrBuf b = {0};
  kr_diags_format(d, &b);
  return b.data ? kr_buf_steal(&b) : strdup("");
}

static void expect_ok(KrStatus st, KrDiags *d) {
  if (st != KR_OK) {
    char *t = diag_text(d);
    print_error("%s\n", t);
    free(t);
  }
  assert_int_equal(st, KR_OK);
}

/* Runs one launch; returns the status and the first error message (or "") in *msg (heap). */
static KrStatus run1(KrEmuModule *m, const char *kernel, unsigned grid, unsigned block,
                     size_t shmem, void **args, size_t nargs, const KrEmuOptions *o, char **msg) {
  KrEmuLaunch l = {.kernel = kernel, .grid = {grid, 1, 1}, .block = {block, 1, 1},
                   .shmem = shmem, .args = args, .nargs = nargs};
  KrDiags *d = kr_diags_new();
  KrStatus st = kr_emu_run(m, &l, 1, o, d);
  *msg = strdup(d->items.len ? d->items.data[0].message : "");
  kr_diags_free(d);
  return st;
}

static void run_ok(KrEmuModule *m, const char *kernel, unsigned grid, unsigned block, size_t shmem,
                   void **args, size_t nargs, const KrEmuOptions *o) {
  char *msg;
  KrStatus st = run1(m, kernel, grid, block, shmem, args, nargs, o, &msg);
  if (st != KR_OK) print_error("%s\n", msg);
  free(msg);
  assert_int_equal(st, KR_OK);
}

static void expect_error(KrStatus st, char *msg, const char *needle) {
  if (st == KR_OK || !strstr(msg, needle)) print_error("got: %s\nwanted: %s\n", msg, needle);
  assert_int_equal(st, KR_ERR);
  assert_non_null(strstr(msg, needle));
  free(msg);
}

/* Like expect_error, with a second part that must be in the message too (the place, say). */
static void expect_error2(KrStatus st, char *msg, const char *needle, const char *also) {
  if (st == KR_OK || !strstr(msg, needle) || !strstr(msg, also))
    print_error("got: %s\nwanted: %s … %s\n", msg, needle, also);
  assert_int_equal(st, KR_ERR);
  assert_non_null(strstr(msg, needle));
  assert_non_null(strstr(msg, also));
  free(msg);
}

static int remove_one(const char *p, const struct stat *s, int f, struct FTW *w) {
  (void)s, (void)f, (void)w;
  return remove(p);
}

static int setup(void **state) {
  (void)state;
  if (!mkdtemp(g_cache)) return -1;
  KrDiags *d = kr_diags_new();
  KrStatus a = build("basics.cu", kBasics, sizeof kBasics / sizeof *kBasics, &g_basics, d);
  KrStatus b = build("lowp.cu", kLowp, sizeof kLowp / sizeof *kLowp, &g_lowp, d);
  if (b == KR_OK) b = build("memcheck.cu", kCheck, sizeof kCheck / sizeof *kCheck, &g_check, d);
  if (b == KR_OK) b = build("streams.cu", kStreams, 1, &g_streams, d);
  if (b == KR_OK) b = build("cluster.cu", kCluster, sizeof kCluster / sizeof *kCluster, &g_cluster, d);
  if (b == KR_OK) b = build("ptx_mma.cu", kPtx, sizeof kPtx / sizeof *kPtx, &g_ptx, d);
  if (a != KR_OK || b != KR_OK) {
    char *t = diag_text(d);
    fprintf(stderr, "building the test kernels failed:\n%s", t);
    free(t);
  }
  kr_diags_free(d);
  return a == KR_OK && b == KR_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  kr_emu_module_free(g_basics);
  kr_emu_module_free(g_lowp);
  kr_emu_module_free(g_check);
  kr_emu_module_free(g_streams);
  kr_emu_module_free(g_cluster);
  kr_emu_module_free(g_ptx);
  nftw(g_cache, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}

/* ---- Kernels that must compute the right thing ---------------------------------------------------------- */

static void saxpy_with_a_grid_stride_loop_matches_the_cpu(void **state) {
  (void)state;
  int n = 1000;
  float a = 2.5f;
  float *x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  float *y = kr_emu_alloc_elems((size_t)n, sizeof(float), "y");
  for (int i = 0; i < n; i++) x[i] = (float)i * 0.5f, y[i] = (float)(n - i);
  void *args[] = {&n, &a, &x, &y};
  run_ok(g_basics, "saxpy", 3, 128, 0, args, 4, NULL);  /* 384 threads: the loop strides */
  for (int i = 0; i < n; i++) assert_float_equal(y[i], a * ((float)i * 0.5f) + (float)(n - i), 0.0f);
  kr_emu_free(x);
  kr_emu_free(y);
}

static float absf(float f) { return f < 0 ? -f : f; }  /* (the test links no libm) */

/* Integers in floats: every order of additions gives the same, exact sum. */
static void fill_ints(float *x, int n) {
  for (int i = 0; i < n; i++) x[i] = (float)((i * 7) % 13);
}

static float int_sum(const float *x, int from, int to) {
  float s = 0.0f;
  for (int i = from; i < to; i++) s += x[i];
  return s;
}

static void block_reduction_with_syncthreads_is_exact_in_any_order(void **state) {
  (void)state;
  int n = 1000, blocks = 4;
  float *x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  float *p = kr_emu_alloc_elems((size_t)blocks, sizeof(float), "partial");
  fill_ints(x, n);
  void *args[] = {&x, &p, &n};
  for (uint64_t seed = 0; seed < 4; seed++) {
    KrEmuOptions o = {.seed = seed, .shuffle = seed > 0};
    memset(p, 0, (size_t)blocks * sizeof(float));
    run_ok(g_basics, "block_sum", (unsigned)blocks, 256, 0, args, 3, &o);
    for (int b = 0; b < blocks; b++)
      assert_float_equal(p[b], int_sum(x, b * 256, b * 256 + 256 < n ? b * 256 + 256 : n), 0.0f);
  }
  kr_emu_free(x);
  kr_emu_free(p);
}

/* The race is found in any thread order, not only when the order happens to change the sum. */
static void missing_syncthreads_is_reported_as_a_race_in_any_order(void **state) {
  (void)state;
  int n = 1024, blocks = 4;
  float *x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  float *p = kr_emu_alloc_elems((size_t)blocks, sizeof(float), "partial");
  fill_ints(x, n);
  void *args[] = {&x, &p, &n};
  for (uint64_t seed = 0; seed <= 3; seed++) {
    KrEmuOptions o = {.seed = seed, .shuffle = seed != 0};
    char *msg;
    KrStatus st = run1(g_basics, "block_sum_racy", (unsigned)blocks, 256, 0, args, 3, &o, &msg);
    expect_error2(st, msg, "kernel 'block_sum_racy' has a data race on shared memory 's' byte ",
                  "tests/emu/basics.cu:41 with no barrier");
  }
  kr_emu_free(x);
  kr_emu_free(p);
}

static void warp_shuffle_reduction_sums_each_warp(void **state) {
  (void)state;
  int n = 128;
  float *x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  float *s = kr_emu_alloc_elems(4, sizeof(float), "sums");
  unsigned *b = kr_emu_alloc_elems(4, sizeof(unsigned), "ballots");
  for (int i = 0; i < n; i++) x[i] = (float)(i % 5) - (i % 3 == 0 ? 2.0f : 0.0f);
  void *args[] = {&x, &s, &b};
  KrEmuOptions o = {.seed = 7, .shuffle = true};
  run_ok(g_basics, "warp_sum", 2, 64, 0, args, 3, &o);
  for (int w = 0; w < 4; w++) {
    unsigned ballot = 0;
    for (int l = 0; l < 32; l++) ballot |= (x[w * 32 + l] > 0.0f ? 1u : 0u) << l;
    assert_float_equal(s[w], int_sum(x, w * 32, w * 32 + 32), 0.0f);
    assert_int_equal(b[w], ballot);
  }
  kr_emu_free(x);
  kr_emu_free(s);
  kr_emu_free(b);
}

static void shuffles_of_wide_types_and_votes_follow_cuda_rules(void **state) {
  (void)state;
  int n = 64;
  double *d = kr_emu_alloc_elems((size_t)n, sizeof(double), "d");
  double *dout = kr_emu_alloc_elems((size_t)n, sizeof(double), "dout");
  float *f = kr_emu_alloc_elems((size_t)n, sizeof(float), "f");
  float *hout = kr_emu_alloc_elems(2 * (size_t)n, sizeof(float), "hout");
  int *votes = kr_emu_alloc_elems(3 * (size_t)n, sizeof(int), "votes");
  for (int i = 0; i < n; i++) d[i] = 1.0 + (double)i / 3.0, f[i] = (float)i;  /* f: only warp 1 > 40 */
  void *args[] = {&d, &f, &dout, &hout, &votes};
  KrEmuOptions o = {.seed = 5, .shuffle = true};
  run_ok(g_basics, "shuffles_and_votes", 1, 64, 0, args, 5, &o);
  for (int i = 0; i < n; i++) {
    int lane = i & 31, src = (i & ~31) + 31 - lane, seg = lane & ~7;
    assert_true(dout[i] == d[i ^ 1]);
    assert_float_equal(hout[2 * i], f[src], 0.0f);
    assert_float_equal(hout[2 * i + 1], -f[src], 0.0f);
    assert_int_equal(votes[3 * i], i >= 32);
    assert_int_equal(votes[3 * i + 1], 1);
    assert_int_equal(votes[3 * i + 2], lane - seg < 3 ? i : i - 3);
  }
  kr_emu_free(d);
  kr_emu_free(dout);
  kr_emu_free(f);
  kr_emu_free(hout);
  kr_emu_free(votes);
}

static void atomics_of_every_kind_agree_with_the_cpu(void **state) {
  (void)state;
  int *ci = kr_emu_alloc_elems(6, sizeof(int), "ci");
  unsigned *cu = kr_emu_alloc_elems(5, sizeof(unsigned), "cu");
  unsigned long long *cull = kr_emu_alloc_elems(2, sizeof(unsigned long long), "cull");
  float *cf = kr_emu_alloc_elems(1, sizeof(float), "cf");
  double *cd = kr_emu_alloc_elems(1, sizeof(double), "cd");
  int ci0[6] = {0, 0, -1000, 1000, 0, 0};
  unsigned cu0[5] = {0xffffffffu, 0, 0, 0, 0};
  memcpy(ci, ci0, sizeof ci0);
  memcpy(cu, cu0, sizeof cu0);
  cull[0] = cull[1] = 0;
  cf[0] = 0.0f;
  cd[0] = 0.0;
  void *args[] = {&ci, &cu, &cull, &cf, &cd};
  KrEmuOptions o = {.seed = 9, .shuffle = true};
  run_ok(g_basics, "atomics", 1, 64, 0, args, 5, &o);
  assert_int_equal(ci[0], 2016);
  assert_int_equal(ci[1], -2016);
  assert_int_equal(ci[2], 63 * 3 - 50);
  assert_int_equal(ci[3], -50);
  assert_int_equal(ci[4], 2016);
  assert_int_equal(ci[5], 7);
  assert_int_equal(cu[0], 0);
  assert_int_equal(cu[1], 0xffffffffu);
  assert_int_equal(cu[2], 0);     /* 0 ^ 1 ^ … ^ 63 */
  assert_int_equal(cu[3], 64 % 10); /* atomicInc wraps to 0 past 9 */
  assert_int_equal(cu[4], 6);     /* atomicDec: 0 -> 9 -> 8 …, 64 times */
  assert_true(cull[0] == 2016ull << 33);
  assert_true(cull[1] == 63);
  assert_float_equal(cf[0], 32.0f, 0.0f);
  assert_true(cd[0] == 16.0);
  kr_emu_free(ci);
  kr_emu_free(cu);
  kr_emu_free(cull);
  kr_emu_free(cf);
  kr_emu_free(cd);
}

static void atomic_histogram_counts_every_element(void **state) {
  (void)state;
  int n = 5000, nbins = 17;
  int *x = kr_emu_alloc_elems((size_t)n, sizeof(int), "x");
  unsigned *bins = kr_emu_alloc_elems((size_t)nbins, sizeof(unsigned), "bins");
  unsigned want[17] = {0};
  for (int i = 0; i < n; i++) x[i] = (i * 31 + 7) % 101, want[x[i] % nbins]++;
  memset(bins, 0, (size_t)nbins * sizeof(unsigned));
  void *args[] = {&x, &n, &bins, &nbins};
  KrEmuOptions o = {.seed = 3, .shuffle = true};
  run_ok(g_basics, "histogram", 8, 96, 0, args, 4, &o);
  for (int k = 0; k < nbins; k++) assert_int_equal(bins[k], want[k]);
  kr_emu_free(x);
  kr_emu_free(bins);
}

static void extern_shared_memory_is_the_launch_dynamic_memory(void **state) {
  (void)state;
  int n = 256;
  float *x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  float *y = kr_emu_alloc_elems((size_t)n, sizeof(float), "y");
  for (int i = 0; i < n; i++) x[i] = (float)i;
  void *args[] = {&x, &y};
  run_ok(g_basics, "reverse_chunks", 4, 64, 64 * sizeof(float), args, 2, NULL);
  for (int b = 0; b < 4; b++)
    for (int t = 0; t < 64; t++) assert_float_equal(y[b * 64 + t], x[b * 64 + 63 - t], 0.0f);
  /* Less than the kernel uses: caught by the memory checker, to the byte. */
  char *msg;
  KrStatus st = run1(g_basics, "reverse_chunks", 1, 64, 60 * sizeof(float), args, 2, NULL, &msg);
  expect_error2(st, msg, "kernel 'reverse_chunks' wrote dynamic shared memory out of bounds: byte 240 (of 240) at ",
                "tests/emu/basics.cu:127 (block (0,0,0), thread (60,0,0))");
  kr_emu_free(x);
  kr_emu_free(y);
}

/* A wgmma descriptor's swizzle reads address bits 4 to 9, so the dynamic shared memory starts
 * 1024-byte aligned as on a GPU, for sizes that are not multiples of 1024 too. */
static void dynamic_shared_memory_is_1024_byte_aligned(void **state) {
  (void)state;
  unsigned *out = kr_emu_alloc_elems(3, sizeof(unsigned), "out");
  void *args[] = {&out};
  size_t sizes[] = {1000, 1024 + 16, 99456};
  for (int i = 0; i < 3; i++) {
    out[0] = 7;
    run_ok(g_basics, "dyn_align", 1, 32, sizes[i], args, 1, NULL);
    assert_int_equal(out[0], 0);
  }
  kr_emu_free(out);
}

static void templated_kernel_runs_by_its_written_name(void **state) {
  (void)state;
  float *x = kr_emu_alloc_elems(128, sizeof(float), "x");
  float *y = kr_emu_alloc_elems(128, sizeof(float), "y");
  float scale = 3.0f;
  for (int i = 0; i < 128; i++) x[i] = (float)i;
  void *args[] = {&x, &y, &scale};
  run_ok(g_basics, "tk<float,4>", 1, 32, 0, args, 3, NULL);  /* spacing need not match */
  for (int i = 0; i < 128; i++) assert_float_equal(y[i], (float)i * 3.0f + (float)(i % 4), 0.0f);
  size_t np;
  const size_t *sizes;
  assert_int_equal(kr_emu_kernel_params(g_basics, "tk<float, 4>", &np, &sizes), KR_OK);
  assert_int_equal(np, 3);
  assert_int_equal(sizes[2], sizeof(float));
  kr_emu_free(x);
  kr_emu_free(y);
}

/* ---- Low precision, WMMA, async copies, cooperative groups ------------------------------------------------ */

static void half_and_bfloat16_conversions_round_to_nearest_even(void **state) {
  (void)state;
  float in[] = {1.0f, -0.0f, 65504.0f, 65519.0f, 65520.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f,
                1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 0.1f, 1.0f + 0x1p-8f, 1.0f + 0x3p-8f, -2.0f};
  unsigned short want_h[] = {0x3c00, 0x8000, 0x7bff, 0x7bff, 0x7c00, 0x0001, 0x0000, 0x0001,
                             0x3c00, 0x3c02, 0x2e66, 0x3c04, 0x3c0c, 0xc000};
  unsigned short want_bf[] = {0x3f80, 0x8000, 0x4780, 0x4780, 0x4780, 0x3380, 0x3300, 0x3340,
                              0x3f80, 0x3f80, 0x3dcd, 0x3f80, 0x3f82, 0xc000};
  int n = (int)(sizeof in / sizeof *in);
  float *x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  unsigned short *h = kr_emu_alloc_elems((size_t)n, 2, "h");
  unsigned short *bf = kr_emu_alloc_elems((size_t)n, 2, "bf");
  memcpy(x, in, sizeof in);
  void *args[] = {&n, &x, &h, &bf};
  run_ok(g_lowp, "conversions", 1, 32, 0, args, 4, NULL);
  for (int i = 0; i < n; i++) {
    if (h[i] != want_h[i] || bf[i] != want_bf[i])
      print_error("%a: half 0x%04x (want 0x%04x), bf16 0x%04x (want 0x%04x)\n", (double)in[i],
                  h[i], want_h[i], bf[i], want_bf[i]);
    assert_int_equal(h[i], want_h[i]);
    assert_int_equal(bf[i], want_bf[i]);
  }
  kr_emu_free(x);
  kr_emu_free(h);
  kr_emu_free(bf);
}

static void half2_and_bf16_arithmetic_match_float_within_their_precision(void **state) {
  (void)state;
  int n = 200, n2 = 100;
  float a = 0.75f;
  uint16_t *x = kr_emu_alloc_elems((size_t)n, 2, "x"), *y = kr_emu_alloc_elems((size_t)n, 2, "y");
  float *out = kr_emu_alloc_elems((size_t)n, sizeof(float), "out");
  float *fa = kr_emu_alloc_elems((size_t)n, sizeof(float), "a"), *fb = kr_emu_alloc_elems((size_t)n, sizeof(float), "b");
  float *sum = kr_emu_alloc_elems((size_t)n, sizeof(float), "sum"), *prod = kr_emu_alloc_elems((size_t)n, sizeof(float), "prod");
  float xv[200], yv[200];
  for (int i = 0; i < n; i++) {
    xv[i] = (float)(i % 17) * 0.25f - 2.0f;  /* exact in half */
    yv[i] = (float)(i % 11) * 0.5f;
    fa[i] = (float)((i * 7919) % 2003 - 1001) * 0.0137f;  /* spread over +-14, not exact in bf16 */
    fb[i] = (float)((i * 104729) % 997 - 498) * 0.00613f;
  }
  /* Exact small values in half bits: sign, exponent, mantissa. */
  for (int i = 0; i < n; i++) {
    float v[2] = {xv[i], yv[i]};
    uint16_t *dst[2] = {&x[i], &y[i]};
    for (int k = 0; k < 2; k++) {
      float f = v[k];
      uint16_t s = f < 0 ? 0x8000 : 0;
      f = absf(f);
      if (f == 0.0f) { *dst[k] = s; continue; }
      int e = 0;
      while (f >= 2.0f) f *= 0.5f, e++;
      while (f < 1.0f) f *= 2.0f, e--;  /* now f in [1, 2) */
      *dst[k] = (uint16_t)(s | (uint16_t)((e + 15) << 10) | (uint16_t)((f - 1.0f) * 1024.0f));
    }
  }
  void *args[] = {&n2, &a, &x, &y, &out};
  run_ok(g_lowp, "half2_axpy", 1, 128, 0, args, 5, NULL);
  for (int i = 0; i < n; i++) {
    float want = a * xv[i] + yv[i];
    assert_true(absf(out[i] - want) <= absf(want) * 0x1p-10f + 1e-6f);  /* half: 11 bits */
  }
  void *args2[] = {&n, &fa, &fb, &sum, &prod};
  run_ok(g_lowp, "bf16_ops", 1, 128, 0, args2, 5, NULL);
  for (int i = 0; i < n; i++) {
    float s = fa[i] + fb[i], p = fa[i] * fb[i];
    /* Two roundings of the inputs and one of the result, 8 bits each. */
    assert_true(absf(sum[i] - s) <= (absf(fa[i]) + absf(fb[i])) * 0x1.8p-8f + 1e-6f);
    assert_true(absf(prod[i] - p) <= absf(p) * 0x1.8p-7f + 1e-6f);
  }
  uint16_t *bufs16[] = {x, y};
  float *bufs[] = {out, fa, fb, sum, prod};
  for (int i = 0; i < 2; i++) kr_emu_free(bufs16[i]);
  for (int i = 0; i < 5; i++) kr_emu_free(bufs[i]);
}

static uint16_t small_int_half(int v) {  /* v in -8..8: exact in half */
  if (v == 0) return 0;
  uint16_t s = v < 0 ? 0x8000 : 0;
  int m = v < 0 ? -v : v, e = 0;
  while ((m >> e) > 1) e++;
  return (uint16_t)(s | (uint16_t)((e + 15) << 10) | (uint16_t)(((m << 10) >> e) & 0x3ff));
}

static void wmma_16x16x16_tile_matches_a_cpu_reference(void **state) {
  (void)state;
  uint16_t *a = kr_emu_alloc_elems(256, 2, "a"), *b = kr_emu_alloc_elems(256, 2, "b");
  float *c = kr_emu_alloc_elems(256, sizeof(float), "c");
  int av[256], bv[256];
  for (int i = 0; i < 256; i++) {
    av[i] = (i * 5 + 3) % 17 - 8;
    bv[i] = (i * 11 + 1) % 15 - 7;
    a[i] = small_int_half(av[i]);  /* a row-major: a[r][k] = av[r*16+k] */
    b[i] = small_int_half(bv[i]);  /* b col-major: b[k][c] = bv[c*16+k] */
  }
  void *args[] = {&a, &b, &c};
  run_ok(g_lowp, "wmma_tile", 1, 32, 0, args, 3, NULL);
  for (int r = 0; r < 16; r++)
    for (int col = 0; col < 16; col++) {
      int s = 0;
      for (int k = 0; k < 16; k++) s += av[r * 16 + k] * bv[col * 16 + k];
      assert_float_equal(c[r * 16 + col], 2.0f * (float)s, 0.0f);
    }
  kr_emu_free(a);
  kr_emu_free(b);
  kr_emu_free(c);
}

static void pipeline_double_buffer_copies_every_chunk_and_exposes_a_short_wait(void **state) {
  (void)state;
  int chunks = 5, all = 1, short_wait = 0, n = 5 * 128;
  float *in = kr_emu_alloc_elems((size_t)n, sizeof(float), "in");
  float *out = kr_emu_alloc_elems((size_t)n, sizeof(float), "out");
  for (int i = 0; i < n; i++) in[i] = (float)i + 1.0f;
  void *args[] = {&in, &out, &chunks, &all};
  run_ok(g_lowp, "pipelined_scale", 1, 128, 0, args, 4, NULL);
  for (int i = 0; i < n; i++) assert_float_equal(out[i], 3.0f * in[i], 0.0f);
  /* Waiting for one stage too few reads a buffer the copy has not filled yet: fresh shared
   * memory, which no thread wrote. */
  void *args2[] = {&in, &out, &chunks, &short_wait};
  char *msg;
  KrStatus st = run1(g_lowp, "pipelined_scale", 1, 128, 0, args2, 4, NULL, &msg);
  expect_error2(st, msg, "kernel 'pipelined_scale' read shared memory that no thread of block (0,0,0) wrote: shared memory 'buf' byte ",
                "tests/emu/lowp.cu:81 (thread (");
  kr_emu_free(in);
  kr_emu_free(out);
}

static void pipeline_zero_fill_reads_nothing_and_writes_its_element(void **state) {
  (void)state;
  int n = 100;
  float *in = kr_emu_alloc_elems((size_t)n, sizeof(float), "in");
  float *out = kr_emu_alloc_elems(128, sizeof(float), "out");
  for (int i = 0; i < n; i++) in[i] = (float)i;
  void *args[] = {&in, &out, &n};
  run_ok(g_lowp, "zfill_copy", 1, 128, 0, args, 3, NULL);
  for (int i = 0; i < 128; i++) assert_float_equal(out[i], i < n ? (float)i + 1.0f : 1.0f, 0.0f);
  kr_emu_free(in);
  kr_emu_free(out);
}

static void cooperative_group_tiles_reduce(void **state) {
  (void)state;
  int *x = kr_emu_alloc_elems(128, sizeof(int), "x"), *s = kr_emu_alloc_elems(8, sizeof(int), "sums");
  for (int i = 0; i < 128; i++) x[i] = i * 3 - 50;
  void *args[] = {&x, &s};
  KrEmuOptions o = {.seed = 11, .shuffle = true};
  run_ok(g_lowp, "tile_sums", 2, 64, 0, args, 2, &o);
  for (int t = 0; t < 8; t++) {
    int want = 0;
    for (int i = 0; i < 16; i++) want += x[t * 16 + i];
    assert_int_equal(s[t], want);
  }
  kr_emu_free(x);
  kr_emu_free(s);
}

/* ---- Inline PTX: mma.sync, ldmatrix, cvt.rna.tf32.f32 (tests/emu/ptx_mma.cu) ------------------------ */

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static double tf32_of(float f) { return (double)bits_float(float_bits(f) & 0xffffe000u); }

/* An integer from -7 to 7 (not 0) plus j * 2^-14, j < 16: below tf32's 10 mantissa bits, so the
 * tensor cores drop it and see the integer, which a wrong emulation would not. */
static float int_with_low_bits(int i) {
  int n = i % 7 + 1, j = (i * 7) % 16;
  float f = (float)n + (float)j * 0x1p-14f;
  return i % 3 == 0 ? -f : f;
}

static void mma_tf32_drops_the_low_13_bits_of_its_operands(void **state) {
  (void)state;
  float *a = kr_emu_alloc_elems(128, sizeof(float), "a"), *b = kr_emu_alloc_elems(64, sizeof(float), "b");
  float *c = kr_emu_alloc_elems(128, sizeof(float), "c"), *d = kr_emu_alloc_elems(128, sizeof(float), "d");
  for (int i = 0; i < 128; i++) a[i] = int_with_low_bits(i), c[i] = (float)(i % 9) - 4.5f;
  for (int i = 0; i < 64; i++) b[i] = int_with_low_bits(i * 5 + 2);
  void *args[] = {&a, &b, &c, &d};
  KrEmuOptions o = {.seed = 3, .shuffle = true};
  run_ok(g_ptx, "mma_tf32", 1, 32, 0, args, 4, &o);
  int differs = 0;
  for (int r = 0; r < 16; r++)
    for (int n = 0; n < 8; n++) {
      double want = c[r * 8 + n], full = c[r * 8 + n];
      for (int k = 0; k < 8; k++) {
        want += tf32_of(a[r * 8 + k]) * tf32_of(b[k * 8 + n]);
        full += (double)a[r * 8 + k] * (double)b[k * 8 + n];
      }
      assert_true((double)d[r * 8 + n] == want);  /* integers and halves: exact in float */
      differs += full - want > 1e-4 || want - full > 1e-4;
    }
  assert_true(differs > 64);  /* the dropped bits matter to most elements */
  kr_emu_free(a);
  kr_emu_free(b);
  kr_emu_free(c);
  kr_emu_free(d);
}

/* The tensor cores truncate their sums (kr_emu::tc_round): c = +-1 plus one product of 0.75 of c's last
 * place, same sign, gives c itself; rounding to nearest would give the next float away from zero. */
static void mma_sums_round_toward_zero_as_the_tensor_cores_do(void **state) {
  (void)state;
  float *a = kr_emu_alloc_elems(128, sizeof(float), "a"), *b = kr_emu_alloc_elems(64, sizeof(float), "b");
  float *c = kr_emu_alloc_elems(128, sizeof(float), "c"), *d = kr_emu_alloc_elems(128, sizeof(float), "d");
  for (int i = 0; i < 128; i++) a[i] = 0.0f, c[i] = i / 8 % 2 ? -1.0f : 1.0f;
  for (int i = 0; i < 64; i++) b[i] = i < 8 ? 0x1p-12f : 0.0f;   /* row k = 0 */
  for (int r = 0; r < 16; r++) a[r * 8] = r % 2 ? -0x3p-13f : 0x3p-13f;   /* column k = 0; a * b = 0.75 * 2^-23 */
  void *args[] = {&a, &b, &c, &d};
  KrEmuOptions o = {.seed = 5, .shuffle = true};
  run_ok(g_ptx, "mma_tf32", 1, 32, 0, args, 4, &o);
  for (int i = 0; i < 128; i++) {
    if (d[i] != c[i]) print_error("d[%d] = %a, want %a\n", i, (double)d[i], (double)c[i]);
    assert_true(d[i] == c[i]);
  }
  kr_emu_free(a);
  kr_emu_free(b);
  kr_emu_free(c);
  kr_emu_free(d);
}

/* wgmma's product is in its registers once issued (a use before the wait waits for it, as ptxas makes
 * it), and the shared memory it reads must not change until wgmma.wait_group completes it: a kernel
 * that writes B in between stops with the reason; one that reads B with no barrier after its writes
 * is a race the memory checker finds. */
static void wgmma_b_must_not_change_before_its_wait(void **state) {
  (void)state;
  float *out = kr_emu_alloc_elems(3 * 128, sizeof(float), "out");
  int overwrite = 0;
  void *args[] = {&out, &overwrite};
  KrEmuOptions o = {.seed = 7, .shuffle = true};
  run_ok(g_ptx, "wgmma_async", 1, 128, 0, args, 2, &o);
  for (int t = 0; t < 128; t++) assert_true(out[3 * t] == 8.0f && out[3 * t + 1] == 8.0f && out[3 * t + 2] == 8.0f);
  overwrite = 1;
  char *msg = NULL;
  KrStatus st = run1(g_ptx, "wgmma_async", 1, 128, 0, args, 2, &o, &msg);
  expect_error(st, msg, "kernel 'wgmma_async' changed the shared memory that a wgmma product reads through its "
                        "descriptor (shared address");
  /* B read with no barrier after other threads wrote it: the memory checker sees the product's reads */
  overwrite = 2;
  st = run1(g_ptx, "wgmma_async", 1, 128, 0, args, 2, &o, &msg);
  expect_error2(st, msg, "kernel 'wgmma_async' has a data race on shared memory 'tile'", "ptx_mma.cu:209 with no barrier");
  kr_emu_free(out);
}

static uint16_t bf16_of(float f) { return (uint16_t)(float_bits(f) >> 16); }  /* f exact in bf16 */

/* d = a (16x16) * b (16x8) + c through ldmatrix tiles, bf16 (quarters) and f16 (integers), with b
 * stored by k rows (ldmatrix .trans) and by n rows; exact, so equal to the double reference. */
static void mma_bf16_and_f16_on_ldmatrix_tiles_match_a_cpu_reference(void **state) {
  (void)state;
  uint16_t *a = kr_emu_alloc_elems(256, 2, "a"), *b = kr_emu_alloc_elems(128, 2, "b");
  float *c = kr_emu_alloc_elems(128, sizeof(float), "c"), *d = kr_emu_alloc_elems(128, sizeof(float), "d");
  int av[256], bv[128];
  for (int i = 0; i < 256; i++) av[i] = (i * 5 + 3) % 17 - 8;
  for (int i = 0; i < 128; i++) bv[i] = (i * 11 + 1) % 15 - 7, c[i] = (float)(i % 7) - 3.0f;
  const char *kernels[] = {"mma_bf16", "mma_f16"};
  for (int kind = 0; kind < 2; kind++)
    for (int b_kn = 0; b_kn < 2; b_kn++) {
      double scale = kind == 0 ? 0.25 : 1.0;  /* bf16: quarters; f16: integers */
      for (int i = 0; i < 256; i++) a[i] = kind == 0 ? bf16_of((float)(av[i] * scale)) : small_int_half(av[i]);
      for (int k = 0; k < 16; k++)
        for (int n = 0; n < 8; n++) {
          int v = bv[k * 8 + n];
          b[b_kn ? k * 8 + n : n * 16 + k] = kind == 0 ? bf16_of((float)(v * scale)) : small_int_half(v);
        }
      void *args[] = {&a, &b, &c, &d, &b_kn};
      KrEmuOptions o = {.seed = (uint64_t)(kind * 2 + b_kn), .shuffle = true};
      run_ok(g_ptx, kernels[kind], 1, 32, 0, args, 5, &o);
      for (int r = 0; r < 16; r++)
        for (int n = 0; n < 8; n++) {
          double want = c[r * 8 + n];
          for (int k = 0; k < 16; k++) want += av[r * 16 + k] * scale * (bv[k * 8 + n] * scale);
          if ((double)d[r * 8 + n] != want)
            print_error("%s b_kn=%d d[%d][%d] = %g, want %g\n", kernels[kind], b_kn, r, n, (double)d[r * 8 + n], want);
          assert_true((double)d[r * 8 + n] == want);
        }
    }
  kr_emu_free(a);
  kr_emu_free(b);
  kr_emu_free(c);
  kr_emu_free(d);
}

/* Element (row, col) of matrix i of ldmatrix_forms's input. */
static uint32_t mat_elem(const uint16_t *m, int i, int row, int col) { return m[i * 64 + row * 8 + col]; }

/* The PTX ISA's layout: without .trans lane l holds (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of each
 * matrix, with .trans (2(l%4), l/4) and (2(l%4)+1, l/4), the first in the low half. */
static void ldmatrix_gives_each_lane_the_isa_layout(void **state) {
  (void)state;
  uint16_t *m = kr_emu_alloc_elems(256, 2, "m");
  uint32_t *out = kr_emu_alloc_elems(6 * 32 * 4, sizeof(uint32_t), "out");
  for (int i = 0; i < 256; i++) m[i] = (uint16_t)(0x1000 + i * 3);
  memset(out, 0, 6 * 32 * 4 * sizeof(uint32_t));
  void *args[] = {&m, &out};
  KrEmuOptions o = {.seed = 9, .shuffle = true};
  run_ok(g_ptx, "ldmatrix_forms", 1, 32, 0, args, 2, &o);
  static const int count[] = {1, 2, 4, 1, 2, 4};
  for (int form = 0; form < 6; form++)
    for (int l = 0; l < 32; l++)
      for (int i = 0; i < 4; i++) {
        uint32_t want = 0;
        if (i < count[form] && form < 3)
          want = mat_elem(m, i, l / 4, 2 * (l % 4)) | mat_elem(m, i, l / 4, 2 * (l % 4) + 1) << 16;
        else if (i < count[form])
          want = mat_elem(m, i, 2 * (l % 4), l / 4) | mat_elem(m, i, 2 * (l % 4) + 1, l / 4) << 16;
        uint32_t got = out[(form * 32 + l) * 4 + i];
        if (got != want) print_error("form %d lane %d register %d: 0x%08x, want 0x%08x\n", form, l, i, got, want);
        assert_int_equal(got, want);
      }
  kr_emu_free(m);
  kr_emu_free(out);
}

/* The lanes' row reads are the kernel's, at the asm's line (12, in ldmatrix_x4). */
static void ldmatrix_reads_are_checked_like_the_kernels_own(void **state) {
  (void)state;
  uint16_t *m = kr_emu_alloc_elems(256, 2, "m");
  uint32_t *out = kr_emu_alloc_elems(128, sizeof(uint32_t), "out");
  for (int i = 0; i < 256; i++) m[i] = (uint16_t)i;
  int mode = 0;
  void *args[] = {&m, &out, &mode};
  run_ok(g_ptx, "ldmatrix_checked", 1, 32, 0, args, 3, NULL);
  assert_int_equal(out[0], 0x00010000u);   /* lane 0, matrix 0: (0, 0) and (0, 1) */
  char *msg;
  mode = 1;
  KrStatus st = run1(g_ptx, "ldmatrix_checked", 1, 32, 0, args, 3, NULL, &msg);
  expect_error2(st, msg, "kernel 'ldmatrix_checked' read shared memory that no thread of block (0,0,0) wrote: "
                "shared memory 'tile' byte 384 at ", "tests/emu/ptx_mma.cu:12 (thread (24,0,0))");
  mode = 2;
  st = run1(g_ptx, "ldmatrix_checked", 1, 32, 0, args, 3, NULL, &msg);
  expect_error2(st, msg, "kernel 'ldmatrix_checked' has a data race on shared memory 'tile' byte 2: thread (0,0,0) "
                "of block (0,0,0) read at ", "ptx_mma.cu:12, thread (1,0,0) of block (0,0,0) wrote at "
                KR_SOURCE_DIR "/tests/emu/ptx_mma.cu:173 with no barrier or __syncwarp between");
  kr_emu_free(m);
  kr_emu_free(out);
}

static void cvt_rna_tf32_rounds_to_nearest_ties_away(void **state) {
  (void)state;
  /* 1, a tie (to even would give 1), its negative, just below and above it, a tie that carries into
   * the exponent, 0.1 (rounds down), 2^-130 (subnormal, kept), a subnormal rounding up to the
   * smallest normal, FLT_MAX (to infinity), NaNs (their low 13 bits dropped: one becomes an
   * infinity). The last five as an H200 gives them. */
  static const uint32_t in[] = {0x3f800000u, 0x3f801000u, 0xbf801000u, 0x3f800fffu, 0x3f801001u,
                                0x3f7ff000u, 0x3dcccccdu, 0x00080000u, 0x007ff000u, 0x7f7fffffu,
                                0x7fc00001u, 0x7f801234u};
  static const uint32_t want[] = {0x3f800000u, 0x3f802000u, 0xbf802000u, 0x3f800000u, 0x3f802000u,
                                  0x3f800000u, 0x3dccc000u, 0x00080000u, 0x00800000u, 0x7f800000u,
                                  0x7fc00000u, 0x7f800000u};
  int n = (int)(sizeof in / sizeof *in);
  float *x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  uint32_t *y = kr_emu_alloc_elems((size_t)n, sizeof(uint32_t), "y");
  for (int i = 0; i < n; i++) x[i] = bits_float(in[i]);
  void *args[] = {&x, &y, &n};
  run_ok(g_ptx, "cvt_tf32", 1, 32, 0, args, 3, NULL);
  for (int i = 0; i < n; i++) {
    if (y[i] != want[i]) print_error("0x%08x: 0x%08x, want 0x%08x\n", in[i], y[i], want[i]);
    assert_int_equal(y[i], want[i]);
  }
  kr_emu_free(x);
  kr_emu_free(y);
}

static void mma_in_half_a_warp_stops_the_launch(void **state) {
  (void)state;
  float *d = kr_emu_alloc_elems(32, sizeof(float), "d");
  void *args[] = {&d};
  char *msg;
  KrStatus st = run1(g_ptx, "mma_half_warp", 1, 32, 0, args, 1, NULL, &msg);
  expect_error(st, msg, "kernel 'mma_half_warp' ran mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 with 16 of "
                        "the 32 lanes of warp 0 (mask 0x0000ffff): the instruction is .aligned, for the whole warp "
                        "together");
  kr_emu_free(d);
}

/* ---- Thread block clusters -------------------------------------------------------------------------------- */

/* The four blocks of a cluster meet at cluster.sync() and read each other's partial sums; with
 * shuffle, the blocks run in a random order too. */
static void cluster_blocks_read_each_others_shared_memory(void **state) {
  (void)state;
  int rows = 3, cols = 1001;
  float *x = kr_emu_alloc_elems((size_t)rows * cols, sizeof(float), "x");
  float *out = kr_emu_alloc_elems((size_t)rows * 4, sizeof(float), "out");
  fill_ints(x, rows * cols);
  void *args[] = {&x, &out, &cols};
  for (uint64_t seed = 0; seed < 3; seed++) {
    KrEmuOptions o = {.seed = seed, .shuffle = seed > 0};
    memset(out, 0, (size_t)rows * 4 * sizeof(float));
    run_ok(g_cluster, "cluster_row_sum", (unsigned)rows * 4, 128, 0, args, 3, &o);
    for (int b = 0; b < rows * 4; b++)
      assert_float_equal(out[b], int_sum(x, (b / 4) * cols, (b / 4) * cols + cols), 0.0f);
  }
  kr_emu_free(x);
  kr_emu_free(out);
}

static void cluster_dynamic_shared_memory_is_each_blocks_own(void **state) {
  (void)state;
  float *out = kr_emu_alloc_elems(2 * 4 * 32, sizeof(float), "out");
  KrEmuLaunch l = {.kernel = "cluster_dynamic", .grid = {2, 4, 1}, .block = {32, 1, 1}, .shmem = 32 * sizeof(float),
                   .args = (void *[]){&out}, .nargs = 1};
  KrDiags *d = kr_diags_new();
  expect_ok(kr_emu_run(g_cluster, &l, 1, NULL, d), d);
  kr_diags_free(d);
  for (int by = 0; by < 4; by++)
    for (int bx = 0; bx < 2; bx++)
      for (int t = 0; t < 32; t++)
        assert_float_equal(out[(by * 2 + bx) * 32 + t], (float)((by ^ 1) * 100 + 31 - t), 0.0f);
  kr_emu_free(out);
}

static void cluster_barrier_missed_by_a_block_is_a_deadlock(void **state) {
  (void)state;
  float *out = kr_emu_alloc_elems(4, sizeof(float), "out");
  void *args[] = {&out};
  char *msg;
  KrStatus st = run1(g_cluster, "cluster_half_sync", 4, 32, 0, args, 1, NULL, &msg);
  expect_error2(st, msg, "wait at cluster.sync", "a cluster of 2 blocks from block (0,0,0)");
  kr_emu_free(out);
}

static void cluster_launch_must_be_whole_clusters(void **state) {
  (void)state;
  int rows = 1, cols = 10;
  float *x = kr_emu_alloc_elems(10, sizeof(float), "x"), *out = kr_emu_alloc_elems(8, sizeof(float), "out");
  void *args[] = {&x, &out, &cols};
  char *msg;
  (void)rows;
  KrStatus st = run1(g_cluster, "cluster_row_sum", 6, 32, 0, args, 3, NULL, &msg);
  expect_error(st, msg, "is not a whole number of clusters of (4,1,1) blocks");
  kr_emu_free(x);
  kr_emu_free(out);
}

static void launch_without_clusters_is_a_cluster_of_one(void **state) {
  (void)state;
  float *out = kr_emu_alloc_elems(3 * 32, sizeof(float), "out");
  void *args[] = {&out};
  run_ok(g_cluster, "cluster_of_one", 3, 32, 0, args, 1, NULL);
  for (int i = 0; i < 96; i++) assert_float_equal(out[i], 8.0f, 0.0f);
  kr_emu_free(out);
}

/* barrier_arrive, the block's own work, barrier_wait: every block's value written before its arrive
 * is there after the wait, in whatever order the blocks run. */
static void cluster_split_barrier_waits_for_every_block(void **state) {
  (void)state;
  float *out = kr_emu_alloc_elems(8 * 64, sizeof(float), "out");
  void *args[] = {&out};
  for (uint64_t seed = 0; seed < 4; seed++) {
    KrEmuOptions o = {.seed = seed, .shuffle = seed > 0};
    run_ok(g_cluster, "cluster_split_barrier", 8, 64, 0, args, 1, &o);
    for (int i = 0; i < 8 * 64; i++) assert_float_equal(out[i], 1000.0f + (float)(63 - i % 64), 0.0f);
  }
  kr_emu_free(out);
}

static void cluster_wait_without_arrive_is_an_error(void **state) {
  (void)state;
  float *out = kr_emu_alloc_elems(2, sizeof(float), "out");
  void *args[] = {&out};
  char *msg;
  KrStatus st = run1(g_cluster, "cluster_wait_unarrived", 2, 32, 0, args, 1, NULL, &msg);
  expect_error(st, msg, "called cluster.barrier_wait() without barrier_arrive() before it");
  kr_emu_free(out);
}

/* split_rows' pushed exchange: each block's value arrives in every block's slot before its wait
 * returns, in whatever order the blocks run; a push that never comes is a deadlock at the wait, a
 * slot read before the wait is a read of shared memory its block never wrote, and a push past what
 * the mbarrier expects is refused. */
static void cluster_push_arrives_before_the_wait(void **state) {
  (void)state;
  float *out = kr_emu_alloc_elems(8 * 32, sizeof(float), "out");
  int mode = 0;
  void *args[] = {&out, &mode};
  for (uint64_t seed = 0; seed < 4; seed++) {
    KrEmuOptions o = {.seed = seed, .shuffle = seed > 0};
    memset(out, 0, 8 * 32 * sizeof(float));
    run_ok(g_cluster, "cluster_push", 8, 32, 0, args, 2, &o);
    for (int i = 0; i < 8 * 32; i++) {
      int c = i / 32 / 4;
      assert_float_equal(out[i], (float)((c * 4 + 0) * 10 + 1 + (c * 4 + 1) * 10 + 1 + (c * 4 + 2) * 10 + 1 + (c * 4 + 3) * 10 + 1), 0.0f);
    }
  }
  char *msg;
  mode = 1;
  KrStatus st = run1(g_cluster, "cluster_push", 4, 32, 0, args, 2, NULL, &msg);
  expect_error2(st, msg, "wait at kr_cluster_wait", "a cluster of 4 blocks from block (0,0,0)");
  mode = 2;
  st = run1(g_cluster, "cluster_push", 4, 32, 0, args, 2, NULL, &msg);
  expect_error2(st, msg, "read shared memory that no thread of block", "wrote: shared memory 'slots'");
  mode = 3;
  st = run1(g_cluster, "cluster_push", 4, 32, 0, args, 2, NULL, &msg);
  expect_error2(st, msg, "kr_cluster_push brought 4 bytes to block", "'s mbarrier, which expected 0 more");
  kr_emu_free(out);
}

/* Blocks that poll memory another block writes stay resident while the next blocks run: a grid
 * barrier of 6 blocks (and of 64, the most the emulator holds) completes in any order, each block's
 * shared memory its own; 65 blocks need one more than the emulator holds, which it says. */
static void resident_blocks_wait_for_each_other(void **state) {
  (void)state;
  float *vals = kr_emu_alloc_elems(65, sizeof(float), "vals");
  float *out = kr_emu_alloc_elems(65 * 32, sizeof(float), "out");
  unsigned *count = kr_emu_alloc_elems(1, sizeof(unsigned), "count");
  void *args[] = {&vals, &out, &count};
  for (uint64_t seed = 0; seed < 3; seed++)
    for (unsigned blocks = 6; blocks <= 64; blocks += 58) {
      *count = 0;
      KrEmuOptions o = {.seed = seed, .shuffle = seed > 0};
      run_ok(g_cluster, "resident_grid_barrier", blocks, 32, 0, args, 3, &o);
      float total = (float)(blocks * (blocks + 1) / 2);
      for (unsigned i = 0; i < blocks * 32; i++) assert_float_equal(out[i], total + (float)(i / 32) * 100.0f, 0.0f);
    }
  *count = 0;
  char *msg;
  KrStatus st = run1(g_cluster, "resident_grid_barrier", 65, 32, 0, args, 3, NULL, &msg);
  expect_error(st, msg, "threads 0 wait at __nanosleep; threads 1-31 wait at __syncthreads (64 blocks resident, waiting "
                        "on each other through memory; the emulator holds no more blocks of this size at once)");
  kr_emu_free(vals);
  kr_emu_free(out);
  kr_emu_free(count);
}

static void resident_blocks_that_poll_forever_are_a_deadlock(void **state) {
  (void)state;
  unsigned *flag = kr_emu_alloc_elems(1, sizeof(unsigned), "flag");
  float *out = kr_emu_alloc_elems(3, sizeof(float), "out");
  *flag = 0;
  void *args[] = {&flag, &out};
  char *msg;
  KrStatus st = run1(g_cluster, "resident_wait_forever", 3, 32, 0, args, 2, NULL, &msg);
  expect_error2(st, msg, "kernel 'resident_wait_forever' deadlocked in block", "threads 0 wait at __nanosleep; threads 1-31 wait at __syncthreads (3 blocks resident, waiting on "
                        "each other through memory; no block of the grid is left to start)");
  kr_emu_free(flag);
  kr_emu_free(out);
}

/* ---- Errors ----------------------------------------------------------------------------------------------- */

static void write_one_past_the_end_names_buffer_and_element(void **state) {
  (void)state;
  int n = 1000;  /* 4000 bytes: the end lies against the guard page */
  float *y = kr_emu_alloc_elems((size_t)n, sizeof(float), "y");
  void *args[] = {&y, &n};
  char *msg;
  KrStatus st = run1(g_basics, "write_past_end", 8, 128, 0, args, 2, NULL, &msg);
  expect_error(st, msg, "kernel 'write_past_end' wrote out of bounds: buffer 'y' element 1000 (of 1000)");
  /* 1001 floats end 12 bytes short of the guard: the canary catches the write after the launch. */
  float *z = kr_emu_alloc(1001 * sizeof(float), "z");  /* element size from the kernel's float * */
  int m = 1001;
  void *args2[] = {&z, &m};
  st = run1(g_basics, "write_past_end", 8, 128, 0, args2, 2, NULL, &msg);
  expect_error(st, msg, "wrote out of bounds: buffer 'z' element 1001 (of 1001)");
  kr_emu_free(y);
  kr_emu_free(z);
}

static void read_one_past_the_end_is_reported_as_a_read(void **state) {
  (void)state;
  int n = 256;
  float *x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  float *y = kr_emu_alloc_elems((size_t)n, sizeof(float), "y");
  void *args[] = {&x, &y, &n};
  char *msg;
  KrStatus st = run1(g_basics, "read_past_end", 3, 128, 0, args, 3, NULL, &msg);
  expect_error(st, msg, "kernel 'read_past_end' read out of bounds: buffer 'x' element 256 (of 256)");
  kr_emu_free(x);
  kr_emu_free(y);
}

static void infinite_loop_times_out(void **state) {
  (void)state;
  int *flag = kr_emu_alloc_elems(1, sizeof(int), "flag");
  *flag = 0;
  void *args[] = {&flag};
  KrEmuOptions o = {.timeout_s = 1.0};
  char *msg;
  KrStatus st = run1(g_basics, "spin", 1, 32, 0, args, 1, &o, &msg);
  expect_error(st, msg, "kernel 'spin' did not finish within 1 s");
  kr_emu_free(flag);
}

static void divergent_barrier_is_a_deadlock(void **state) {
  (void)state;
  float *y = kr_emu_alloc_elems(64, sizeof(float), "y");
  void *args[] = {&y};
  char *msg;
  KrStatus st = run1(g_basics, "divergent_barrier", 1, 64, 0, args, 1, NULL, &msg);
  expect_error(st, msg, "kernel 'divergent_barrier' deadlocked in block (0,0,0): threads 0-15 "
                        "wait at __syncthreads while threads 16-63 have exited");
  kr_emu_free(y);
}

static void crash_trap_and_assert_are_reported_and_the_caller_goes_on(void **state) {
  (void)state;
  float *y = kr_emu_alloc_elems(64, sizeof(float), "y");
  int *v = kr_emu_alloc_elems(64, sizeof(int), "v");
  for (int i = 0; i < 64; i++) v[i] = i == 9 ? -1 : i;
  float *bad = (float *)(uintptr_t)16;
  void *args[] = {&bad}, *iargs[] = {&v};
  char *msg;
  KrStatus st = run1(g_basics, "null_write", 1, 32, 0, args, 1, NULL, &msg);
  expect_error(st, msg, "kernel 'null_write' crashed (SIGSEGV at address 0x10) (block (0,0,0), thread (0,0,0))");
  st = run1(g_basics, "traps", 1, 32, 0, iargs, 1, NULL, &msg);
  expect_error(st, msg, "kernel 'traps' called __trap() (block (0,0,0), thread (5,0,0))");
  st = run1(g_basics, "asserts", 1, 32, 0, iargs, 1, NULL, &msg);
  expect_error(st, msg, "kernel 'asserts' failed the assertion 'x[threadIdx.x] >= 0' at ");
  /* This process is untouched: a kernel still runs. */
  int n = 64;
  float a = 1.0f;
  float *x = kr_emu_alloc_elems(64, sizeof(float), "x");
  for (int i = 0; i < 64; i++) x[i] = 1.0f, y[i] = 2.0f;
  void *sargs[] = {&n, &a, &x, &y};
  run_ok(g_basics, "saxpy", 1, 64, 0, sargs, 4, NULL);
  assert_float_equal(y[63], 3.0f, 0.0f);
  kr_emu_free(x);
  kr_emu_free(y);
  kr_emu_free(v);
}

static void wrong_argument_count_is_refused(void **state) {
  (void)state;
  int n = 4;
  float a = 1.0f, *x = NULL;
  void *args[] = {&n, &a, &x};
  char *msg;
  KrStatus st = run1(g_basics, "saxpy", 1, 32, 0, args, 3, NULL, &msg);
  expect_error(st, msg, "kernel 'saxpy' takes 4 arguments, but the launch passes 3");
  float *y = NULL;
  void *args4[] = {&n, &a, &x, &y};
  st = run1(g_basics, "saxpy", 1, 2048, 0, args4, 4, NULL, &msg);
  expect_error(st, msg, "kernel 'saxpy': launch <<<(1,1,1), (2048,1,1), 0>>> is invalid");
  st = run1(g_basics, "no_such_kernel", 1, 32, 0, args, 3, NULL, &msg);
  expect_error(st, msg, "kernel 'no_such_kernel' was not built into this emulator module");
}

static void inline_asm_is_refused_with_its_location(void **state) {
  (void)state;
  KrDiags *d = kr_diags_new();
  KrEmuModule *m = NULL;
  const char *k[] = {"lanes"};
  assert_int_equal(build("inline_asm.cu", k, 1, &m, d), KR_ERR);
  assert_null(m);
  char *t = diag_text(d);
  assert_non_null(strstr(t, "tests/emu/inline_asm.cu:5:5: error: inline PTX 'mov.u32' is not one the CPU emulator "
                            "runs (it runs mma.sync m16n8k8 tf32, m16n8k16 f16/bf16, ldmatrix, cvt.rna.tf32.f32, "
                            "wgmma.mma_async m64nNk8 tf32 and m64nNk16 f16/bf16 with A in registers and B K-major, "
                            "wgmma.fence/commit_group/wait_group, "
                            "fence.proxy.async)"));
  free(t);
  kr_diags_free(d);
}

static void unsupported_inline_ptx_is_refused_with_the_instruction_and_its_location(void **state) {
  (void)state;
  KrDiags *d = kr_diags_new();
  KrEmuModule *m = NULL;
  const char *k[] = {"wgmma_bf16", "mma_k4", "ldmatrix_offset", "wgmma_scale_d", "wgmma_trans_b"};
  assert_int_equal(build("ptx_refused.cu", k, 5, &m, d), KR_ERR);
  assert_null(m);
  char *t = diag_text(d);
  static const char *const want[] = {
    "tests/emu/ptx_refused.cu:7:5: error: inline PTX 'wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16' is not "
    "written as the CPU emulator reads it: an operand is not a list of 4 registers",
    "tests/emu/ptx_refused.cu:13:5: error: inline PTX 'mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32' is not one "
    "the CPU emulator runs",
    "tests/emu/ptx_refused.cu:26:5: error: inline PTX 'ldmatrix.sync.aligned.m8n8.x1.shared.b16' is not written as the "
    "CPU emulator reads it: its address is not written [%N]",
    "tests/emu/ptx_refused.cu:34:5: error: inline PTX 'wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32' is not written "
    "as the CPU emulator reads it: the emulator runs wgmma with scale-d and the scales 1, not 0",
    "tests/emu/ptx_refused.cu:43:5: error: inline PTX 'wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16' is not written "
    "as the CPU emulator reads it: the emulator runs wgmma with B K-major (imm-trans-b 0), not 1",
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    if (!strstr(t, want[i])) print_error("%s\nwanted: %s\n", t, want[i]);
    assert_non_null(strstr(t, want[i]));
  }
  free(t);
  kr_diags_free(d);
}

static void kernel_launch_in_device_code_is_refused_with_its_location(void **state) {
  (void)state;
  KrDiags *d = kr_diags_new();
  KrEmuModule *m = NULL;
  const char *k[] = {"parent"};
  assert_int_equal(build("device_launch.cu", k, 1, &m, d), KR_ERR);
  char *t = diag_text(d);
  assert_non_null(strstr(t, "tests/emu/device_launch.cu:10:9: error: a kernel launch in device code "
                            "(dynamic parallelism) is not supported by the CPU emulator"));
  free(t);
  kr_diags_free(d);
}

static void compile_error_points_at_the_cu_line(void **state) {
  (void)state;
  KrDiags *d = kr_diags_new();
  KrEmuModule *m = NULL;
  const char *k[] = {"broken"};
  assert_int_equal(build("compile_error.cu", k, 1, &m, d), KR_ERR);
  char *t = diag_text(d);
  if (!strstr(t, "tests/emu/compile_error.cu:6:22: error: 'undeclared_value' was not declared"))
    print_error("%s\n", t);
  assert_non_null(strstr(t, "tests/emu/compile_error.cu:6:22: error: 'undeclared_value' was not declared"));
  free(t);
  kr_diags_free(d);
}

static void unknown_and_untemplated_kernel_names_are_refused(void **state) {
  (void)state;
  KrDiags *d = kr_diags_new();
  KrEmuModule *m = NULL;
  const char *k[] = {"tk", "nope"};
  assert_int_equal(build("basics.cu", k, 2, &m, d), KR_ERR);
  char *t = diag_text(d);
  assert_non_null(strstr(t, "kernel 'tk' is a template <typename T, int N>"));
  assert_non_null(strstr(t, "no kernel 'nope' in this file (kernels here: saxpy, "));
  free(t);
  kr_diags_free(d);
}

static size_t count_modules(const char *dir) {
  DIR *dp = opendir(dir);
  size_t n = 0;
  for (struct dirent *e; dp && (e = readdir(dp));) n += strstr(e->d_name, ".so") != NULL;
  if (dp) closedir(dp);
  return n;
}

/* ---- Rounds in one child, and sampled blocks ------------------------------------------------------- */

static const char *const kState[] = {"count_calls", "trap_on_second_call", "mark_blocks"};

static KrEmuModule *state_module(void) {
  KrEmuModule *m = NULL;
  KrDiags *d = kr_diags_new();
  expect_ok(build("state.cu", kState, 3, &m, d), d);
  kr_diags_free(d);
  return m;
}

static void rounds_share_module_state_in_one_child(void **state) {
  (void)state;
  KrEmuModule *m = state_module();
  int *a = kr_emu_alloc_elems(1, sizeof(int), "a"), *b = kr_emu_alloc_elems(1, sizeof(int), "b");
  void *aa[] = {&a}, *ba[] = {&b};
  KrEmuLaunch la = {.kernel = "count_calls", .grid = {2, 1, 1}, .block = {32, 1, 1}, .args = aa, .nargs = 1};
  KrEmuLaunch lb = la;
  lb.args = ba;
  KrEmuRound rounds[] = {{&la, 1}, {&lb, 1}};
  KrDiags *d = kr_diags_new();
  expect_ok(kr_emu_run_rounds(m, rounds, 2, NULL, d), d);
  assert_int_equal(*a, 1);
  assert_int_equal(*b, 2);     /* the second round found the first round's count */
  expect_ok(kr_emu_run(m, &la, 1, NULL, d), d);
  assert_int_equal(*a, 1);     /* a new run is a new process: the count starts again */
  kr_diags_free(d);
  kr_emu_free(a);
  kr_emu_free(b);
  kr_emu_module_free(m);
}

static void a_failure_in_a_later_round_names_its_run(void **state) {
  (void)state;
  KrEmuModule *m = state_module();
  int *a = kr_emu_alloc_elems(1, sizeof(int), "a");
  void *aa[] = {&a};
  KrEmuLaunch l = {.kernel = "trap_on_second_call", .grid = {1, 1, 1}, .block = {1, 1, 1}, .args = aa, .nargs = 1};
  KrEmuRound rounds[] = {{&l, 1}, {&l, 1}};
  bool hung = true;
  KrEmuOptions o = {.timed_out = &hung};
  KrDiags *d = kr_diags_new();
  assert_int_equal(kr_emu_run_rounds(m, rounds, 2, &o, d), KR_ERR);
  char *t = diag_text(d);
  if (!strstr(t, "kernel 'trap_on_second_call' (run 2 of 2) called __trap()")) print_error("%s\n", t);
  assert_non_null(strstr(t, "kernel 'trap_on_second_call' (run 2 of 2) called __trap()"));
  assert_false(hung);
  free(t);
  kr_diags_free(d);
  kr_emu_free(a);
  kr_emu_module_free(m);
}

static void sampled_blocks_run_only_those_blocks(void **state) {
  (void)state;
  KrEmuModule *m = state_module();
  int *out = kr_emu_alloc_elems(24, sizeof(int), "out");
  memset(out, 0, 24 * sizeof(int));
  void *args[] = {&out};
  static const uint64_t blocks[] = {0, 23, 7};   /* 7: block (3,1,0) of a 4 x 3 x 2 grid */
  KrEmuLaunch l = {.kernel = "mark_blocks", .grid = {4, 3, 2}, .block = {8, 1, 1}, .args = args,
                   .nargs = 1, .blocks = blocks, .nblocks = 3};
  KrDiags *d = kr_diags_new();
  expect_ok(kr_emu_run(m, &l, 1, NULL, d), d);
  for (int i = 0; i < 24; i++) assert_int_equal(out[i], i == 0 || i == 23 || i == 7);
  static const uint64_t past[] = {24};
  l.blocks = past, l.nblocks = 1;
  assert_int_equal(kr_emu_run(m, &l, 1, NULL, d), KR_ERR);
  char *t = diag_text(d);
  assert_non_null(strstr(t, "a sampled block index is past the grid's last block"));
  free(t);
  kr_diags_free(d);
  kr_emu_free(out);
  kr_emu_module_free(m);
}

static void a_second_build_comes_from_the_cache(void **state) {
  (void)state;
  size_t before = count_modules(g_cache);
  KrDiags *d = kr_diags_new();
  KrEmuModule *m = NULL;
  expect_ok(build("basics.cu", kBasics, sizeof kBasics / sizeof *kBasics, &m, d), d);
  assert_int_equal(count_modules(g_cache), before);
  kr_emu_module_free(m);
  kr_diags_free(d);
}


/* ---- The memory checker (tests/emu/memcheck.cu) --------------------------------------------------- */

/* Two float buffers x (n, values 1..n) and y (m, zero) for the memcheck.cu kernels (x, y, n). */
typedef struct Bufs {
  float *x, *y;
  int n;
  void *args[3];
} Bufs;

static void bufs_make(Bufs *b, int n, int m) {
  b->x = kr_emu_alloc_elems((size_t)n, sizeof(float), "x");
  b->y = kr_emu_alloc_elems((size_t)m, sizeof(float), "y");
  for (int i = 0; i < n; i++) b->x[i] = (float)(i + 1);
  for (int i = 0; i < m; i++) b->y[i] = 0.0f;
  b->n = n;
  b->args[0] = &b->x, b->args[1] = &b->y, b->args[2] = &b->n;
}

static void bufs_free(Bufs *b) {
  kr_emu_free(b->x);
  kr_emu_free(b->y);
}

static KrStatus run_check(const char *kernel, unsigned grid, unsigned block, size_t shmem, Bufs *b,
                          const KrEmuOptions *o, char **msg) {
  return run1(g_check, kernel, grid, block, shmem, b->args, 3, o, msg);
}

/* 1001 floats end 12 bytes short of their 16-byte rounding: x[1001] is in the padding, which
 * no guard page covers. */
static void read_in_the_padding_past_the_end_is_out_of_bounds_with_its_place(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 1001, 1001);
  char *msg;
  run_ok(g_check, "copy_n", 4, 256, 0, b.args, 3, NULL);
  KrStatus st = run_check("read_one_past", 4, 256, 0, &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'read_one_past' read out of bounds: buffer 'x' element 1001 (of 1001) at ",
                "tests/emu/memcheck.cu:22 (block (3,0,0), thread (232,0,0))");
  st = run_check("read_before_start", 4, 256, 0, &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'read_before_start' read out of bounds: buffer 'x' element -1 (of 1001) at ",
                "tests/emu/memcheck.cu:30 (block (0,0,0), thread (0,0,0))");
  bufs_free(&b);
}

static void shared_memory_read_before_any_write_is_reported(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 64, 64);
  char *msg;
  run_ok(g_check, "init_shared", 1, 64, 0, b.args, 3, NULL);
  for (int t = 0; t < 64; t++) assert_float_equal(b.y[t], (float)(64 - t), 0.0f);
  KrStatus st = run_check("uninit_shared", 1, 64, 0, &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'uninit_shared' read shared memory that no thread of block (0,0,0) "
                "wrote: shared memory 'tile' byte 128 at ", "tests/emu/memcheck.cu:41 (thread (32,0,0))");
  bufs_free(&b);
}

/* Each static shared variable has its own bounds: a[32] is not b[0]. */
static void static_shared_array_past_its_end_is_out_of_bounds(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 32, 32);
  char *msg;
  b.n = 0;
  run_ok(g_check, "shared_past_end", 1, 32, 0, b.args, 3, NULL);
  for (int t = 0; t < 32; t++) assert_float_equal(b.y[t], 0.0f, 0.0f);
  b.n = 1;
  KrStatus st = run_check("shared_past_end", 1, 32, 0, &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'shared_past_end' read shared memory 'a' out of bounds: byte 128 (of 128) at ",
                "tests/emu/memcheck.cu:201 (block (0,0,0), thread (31,0,0))");
  /* Namespace-scope and template shared variables; two blocks, each with fresh memory. */
  float *y2 = kr_emu_alloc_elems(64, sizeof(float), "y2");
  void *args[] = {&b.x, &y2, &b.n};
  KrEmuOptions o = {.seed = 5, .shuffle = true};
  run_ok(g_check, "shared_in_template<float, 32>", 2, 32, 0, args, 3, &o);
  for (int i = 0; i < 64; i++) assert_float_equal(y2[i], (float)(32 - i % 32) + 32.0f, 0.0f);
  kr_emu_free(y2);
  bufs_free(&b);
  /* Qualified, aligned, static and two-dimensional shared arrays next to each other. */
  bufs_make(&b, 64, 128);
  run_ok(g_check, "shared_kinds", 2, 64, 0, b.args, 3, &o);
  for (int i = 0; i < 128; i++) assert_float_equal(b.y[i], (float)(64 - i % 64) + 4.0f, 0.0f);
  bufs_free(&b);
}

/* A GPU block starts with fresh shared memory; so does an emulator block, static or dynamic. */
static void shared_memory_does_not_carry_over_between_blocks(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 64, 64);
  char *msg;
  KrStatus st = run_check("carried_shared", 2, 32, 0, &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'carried_shared' read shared memory that no thread of block (1,0,0) "
                "wrote: shared memory 'total' byte 0 at ", "tests/emu/memcheck.cu:62 (thread (0,0,0))");
  st = run_check("carried_dynamic", 2, 32, 32 * sizeof(float), &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'carried_dynamic' read shared memory that no thread of block (1,0,0) "
                "wrote: dynamic shared memory byte 0 at ", "tests/emu/memcheck.cu:72 (thread (0,0,0))");
  bufs_free(&b);
}

static void lost_update_without_atomics_is_a_race_with_both_places(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 64, 1);
  char *msg;
  KrStatus st = run_check("lost_update", 1, 64, 0, &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'lost_update' has a data race on buffer 'y' element 0: thread (0,0,0) of "
                "block (0,0,0) wrote at ", "tests/emu/memcheck.cu:80, thread (1,0,0) of block (0,0,0) "
                "read at " KR_SOURCE_DIR "/tests/emu/memcheck.cu:80 with no barrier or __syncwarp between");
  bufs_free(&b);
}

static void blocks_writing_one_element_race(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 64, 1);
  char *msg;
  KrStatus st = run_check("cross_block", 2, 32, 0, &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'cross_block' has a data race on buffer 'y' element 0: thread (0,0,0) of "
                "block (0,0,0) wrote at ", "memcheck.cu:87, thread (0,0,0) of block (1,0,0) wrote at "
                KR_SOURCE_DIR "/tests/emu/memcheck.cu:87 in another block");
  bufs_free(&b);
}

/* Barriers, atomics, __syncwarp and shuffles order what they should, in any thread order. */
static void correct_reductions_pass_the_race_check(void **state) {
  (void)state;
  static const char *const kernels[] = {"atomic_sum", "reduce_sync", "reduce_warp_synced", "reduce_shuffle"};
  Bufs b;
  bufs_make(&b, 512, 1);
  for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
    for (uint64_t seed = 0; seed < 3; seed++) {
      KrEmuOptions o = {.seed = seed, .shuffle = seed != 0};
      b.y[0] = 0.0f;
      run_ok(g_check, kernels[k], 4, 128, 0, b.args, 3, &o);
      assert_float_equal(b.y[0], 512.0f * 513.0f / 2.0f, 0.0f);
    }
  bufs_free(&b);
  bufs_make(&b, 32, 32);
  b.n = 1;
  run_ok(g_check, "warp_exchange", 1, 32, 0, b.args, 3, NULL);
  for (int l = 0; l < 32; l++) assert_float_equal(b.y[l], (float)((l ^ 1) + 1), 0.0f);
  bufs_free(&b);
}

/* Lanes of one warp are not ordered by being in one warp (independent thread scheduling). */
static void warp_synchronous_code_without_syncwarp_is_a_race(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 128, 32);
  char *msg;
  KrStatus st = run_check("reduce_warp_unsynced", 1, 128, 0, &b, NULL, &msg);
  expect_error2(st, msg, "kernel 'reduce_warp_unsynced' has a data race on shared memory 's' byte 4: "
                "thread (0,0,0) of block (0,0,0) read at ", "memcheck.cu:130, thread (1,0,0) of block "
                "(0,0,0) wrote at " KR_SOURCE_DIR "/tests/emu/memcheck.cu:130 with no barrier or __syncwarp between");
  int zero = 0;
  void *args[] = {&b.x, &b.y, &zero};
  st = run1(g_check, "warp_exchange", 1, 32, 0, args, 3, NULL, &msg);
  expect_error2(st, msg, "kernel 'warp_exchange' has a data race on shared memory 's' byte 4: thread "
                "(0,0,0) of block (0,0,0) read at ", "memcheck.cu:182, thread (1,0,0) of block (0,0,0) "
                "wrote at " KR_SOURCE_DIR "/tests/emu/memcheck.cu:179 with no barrier or __syncwarp between");
  bufs_free(&b);
}

/* streams.cu uses neither shared memory nor atomics: its global races are checked when asked. */
static void race_check_on_global_memory_follows_the_option(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 64, 1);
  char *msg;
  KrEmuOptions on = {.race_check = KR_EMU_RACE_ON}, off = {.race_check = KR_EMU_RACE_OFF};
  run_ok(g_streams, "add_all", 1, 64, 0, b.args, 3, NULL);
  KrStatus st = run1(g_streams, "add_all", 1, 64, 0, b.args, 3, &on, &msg);
  expect_error2(st, msg, "kernel 'add_all' has a data race on buffer 'y' element 0: ",
                "tests/emu/streams.cu:10 with no barrier or __syncwarp between");
  run_ok(g_check, "lost_update", 1, 64, 0, b.args, 3, &off);
  bufs_free(&b);
}

/* The device's printf FIFO holds 1 MiB by default; what passes it is dropped. */
static void printf_past_the_fifo_is_cut_and_reported(void **state) {
  (void)state;
  Bufs b;
  bufs_make(&b, 32, 32);
  char *msg;
  b.n = 10;
  KrStatus st = run_check("chatty", 1, 32, 0, &b, NULL, &msg);
  assert_int_equal(st, KR_OK);
  assert_string_equal(msg, "");
  free(msg);
  b.n = 11000;  /* 99 bytes a line: 1.09 MB */
  st = run_check("chatty", 1, 32, 0, &b, NULL, &msg);
  assert_int_equal(st, KR_OK);
  assert_string_equal(msg, "kernel 'chatty': printf output was cut at 1 MiB, as the GPU's FIFO would");
  free(msg);
  bufs_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(saxpy_with_a_grid_stride_loop_matches_the_cpu),
    cmocka_unit_test(rounds_share_module_state_in_one_child),
    cmocka_unit_test(a_failure_in_a_later_round_names_its_run),
    cmocka_unit_test(sampled_blocks_run_only_those_blocks),
    cmocka_unit_test(block_reduction_with_syncthreads_is_exact_in_any_order),
    cmocka_unit_test(missing_syncthreads_is_reported_as_a_race_in_any_order),
    cmocka_unit_test(warp_shuffle_reduction_sums_each_warp),
    cmocka_unit_test(shuffles_of_wide_types_and_votes_follow_cuda_rules),
    cmocka_unit_test(atomics_of_every_kind_agree_with_the_cpu),
    cmocka_unit_test(atomic_histogram_counts_every_element),
    cmocka_unit_test(extern_shared_memory_is_the_launch_dynamic_memory),
    cmocka_unit_test(dynamic_shared_memory_is_1024_byte_aligned),
    cmocka_unit_test(templated_kernel_runs_by_its_written_name),
    cmocka_unit_test(half_and_bfloat16_conversions_round_to_nearest_even),
    cmocka_unit_test(half2_and_bf16_arithmetic_match_float_within_their_precision),
    cmocka_unit_test(wmma_16x16x16_tile_matches_a_cpu_reference),
    cmocka_unit_test(mma_tf32_drops_the_low_13_bits_of_its_operands),
    cmocka_unit_test(mma_sums_round_toward_zero_as_the_tensor_cores_do),
    cmocka_unit_test(wgmma_b_must_not_change_before_its_wait),
    cmocka_unit_test(mma_bf16_and_f16_on_ldmatrix_tiles_match_a_cpu_reference),
    cmocka_unit_test(ldmatrix_gives_each_lane_the_isa_layout),
    cmocka_unit_test(ldmatrix_reads_are_checked_like_the_kernels_own),
    cmocka_unit_test(cvt_rna_tf32_rounds_to_nearest_ties_away),
    cmocka_unit_test(mma_in_half_a_warp_stops_the_launch),
    cmocka_unit_test(pipeline_double_buffer_copies_every_chunk_and_exposes_a_short_wait),
    cmocka_unit_test(pipeline_zero_fill_reads_nothing_and_writes_its_element),
    cmocka_unit_test(cooperative_group_tiles_reduce),
    cmocka_unit_test(cluster_blocks_read_each_others_shared_memory),
    cmocka_unit_test(cluster_dynamic_shared_memory_is_each_blocks_own),
    cmocka_unit_test(cluster_barrier_missed_by_a_block_is_a_deadlock),
    cmocka_unit_test(cluster_launch_must_be_whole_clusters),
    cmocka_unit_test(launch_without_clusters_is_a_cluster_of_one),
    cmocka_unit_test(cluster_split_barrier_waits_for_every_block),
    cmocka_unit_test(cluster_wait_without_arrive_is_an_error),
    cmocka_unit_test(cluster_push_arrives_before_the_wait),
    cmocka_unit_test(resident_blocks_wait_for_each_other),
    cmocka_unit_test(resident_blocks_that_poll_forever_are_a_deadlock),
    cmocka_unit_test(write_one_past_the_end_names_buffer_and_element),
    cmocka_unit_test(read_one_past_the_end_is_reported_as_a_read),
    cmocka_unit_test(infinite_loop_times_out),
    cmocka_unit_test(divergent_barrier_is_a_deadlock),
    cmocka_unit_test(crash_trap_and_assert_are_reported_and_the_caller_goes_on),
    cmocka_unit_test(wrong_argument_count_is_refused),
    cmocka_unit_test(inline_asm_is_refused_with_its_location),
    cmocka_unit_test(unsupported_inline_ptx_is_refused_with_the_instruction_and_its_location),
    cmocka_unit_test(kernel_launch_in_device_code_is_refused_with_its_location),
    cmocka_unit_test(compile_error_points_at_the_cu_line),
    cmocka_unit_test(unknown_and_untemplated_kernel_names_are_refused),
    cmocka_unit_test(a_second_build_comes_from_the_cache),
    cmocka_unit_test(read_in_the_padding_past_the_end_is_out_of_bounds_with_its_place),
    cmocka_unit_test(shared_memory_read_before_any_write_is_reported),
    cmocka_unit_test(shared_memory_does_not_carry_over_between_blocks),
    cmocka_unit_test(static_shared_array_past_its_end_is_out_of_bounds),
    cmocka_unit_test(lost_update_without_atomics_is_a_race_with_both_places),
    cmocka_unit_test(blocks_writing_one_element_race),
    cmocka_unit_test(correct_reductions_pass_the_race_check),
    cmocka_unit_test(warp_synchronous_code_without_syncwarp_is_a_race),
    cmocka_unit_test(race_check_on_global_memory_follows_the_option),
    cmocka_unit_test(printf_past_the_fifo_is_cut_and_reported),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
