/* tests/unit/test_emu_intrin.c: the CPU emulator's fast math intrinsics err as the GPU's do. For
 * each intrinsic of tests/emu/intrin_cases.h, over 32768 arguments, the emulator's result must be
 * within the CUDA Programming Guide's bound of the exact value, and must NOT be what an accurate
 * fp32 function gives on at least a tenth of them (so a plain libm call fails); the documented
 * special cases (__fdividef's huge divisors, flush to zero) hold exactly. */
#define _GNU_SOURCE /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/emu.h"
#include "tests/emu/intrin_cases.h"

static char g_cache[] = "/tmp/kr-test-intrin.XXXXXX";
static KrEmuModule *g_mod;

static int remove_one(const char *p, const struct stat *s, int f, struct FTW *w) {
  (void)s, (void)f, (void)w;
  return remove(p);
}

static int setup(void **state) {
  (void)state;
  if (!mkdtemp(g_cache)) return -1;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  char *path = kr_arena_printf(a, "%s/tests/emu/intrin.cu", KR_SOURCE_DIR);
  char *text;
  size_t len;
  const char *kernels[] = {"intrinsic"};
  KrStatus st = kr_file_read(path, a, &text, &len, d);
  if (st == KR_OK) st = kr_emu_build(path, text, len, kernels, 1, g_cache, &g_mod, d);
  if (st != KR_OK) {
    KrBuf b = {0};
    kr_diags_format(d, &b);
    fprintf(stderr, "building tests/emu/intrin.cu failed:\n%s", b.data ? b.data : "");
    kr_buf_free(&b);
  }
  kr_diags_free(d);
  kr_arena_free(a);
  return st == KR_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  kr_emu_module_free(g_mod);
  nftw(g_cache, remove_one, 8, FTW_DEPTH | FTW_PHYS);
  return 0;
}

/* Runs intrinsic `op` on n argument pairs; out must hold n floats (emulator memory). */
static void run_op(int op, int n, float *x, float *y, float *out) {
  void *args[] = {&op, &n, &x, &y, &out};
  KrEmuLaunch l = {.kernel = "intrinsic", .grid = {8, 1, 1}, .block = {128, 1, 1}, .args = args,
                   .nargs = 5};
  KrDiags *d = kr_diags_new();
  KrStatus st = kr_emu_run(g_mod, &l, 1, NULL, d);
  if (st != KR_OK) print_error("%s\n", d->items.len ? d->items.data[0].message : "");
  kr_diags_free(d);
  assert_int_equal(st, KR_OK);
}

static void every_intrinsic_errs_within_its_bound_and_not_exactly(void **state) {
  (void)state;
  int n = KR_IN_N;
  float *x = kr_emu_alloc_elems(n, 4, "x"), *y = kr_emu_alloc_elems(n, 4, "y");
  float *out = kr_emu_alloc_elems(n, 4, "out");
  assert_true(x && y && out);
  int bad = 0;
  print_message("%-12s %12s %12s %10s %9s\n", "intrinsic", "max error", "(of bound)", "unit", "differs");
  for (int k = 0; k < KR_IN_CASES; k++) {
    const IntrinCase *c = &kIntrinCases[k];
    for (int i = 0; i < n; i++) intrin_input(c->domain, i, &x[i], &y[i]);
    run_op(c->op, n, x, y, out);
    double worst = 0, worst_ratio = 0, worst_bound = 0;
    int differ = 0, over = 0, unit_ulps = 0;
    for (int i = 0; i < n; i++) {
      double bound;
      double e = intrin_error(c, x[i], y[i], out[i], &bound);
      int ulps;
      c->allowed(x[i], y[i], &ulps);
      if (out[i] != c->strict(x[i], y[i])) differ++;
      double ratio = bound > 0 ? e / bound : (e > 0 ? INFINITY : 0);
      if (!(e <= bound)) {
        if (over++ < 3)
          print_error("%s(%a, %a) = %a: error %g exceeds %g %s\n", c->name, x[i], y[i], out[i], e,
                      bound, ulps ? "ulp" : "absolute");
      }
      if (ratio > worst_ratio || (e > 0 && e != e)) worst_ratio = ratio, worst = e, worst_bound = bound, unit_ulps = ulps;
    }
    print_message("%-12s %12.4g %12.4g %10s %8.1f%%\n", c->name, worst, worst_bound,
                  unit_ulps ? "ulp" : "absolute", 100.0 * differ / n);
    if (over) bad = 1, print_error("%s: %d of %d results out of bounds\n", c->name, over, n);
    if (c->must_differ && differ < n / 10) {
      bad = 1;
      print_error("%s: only %d of %d results differ from the accurate fp32 function: it is not "
                  "modelled as the device's approximation\n", c->name, differ, n);
    }
    if (!c->must_differ && differ) bad = 1, print_error("%s: %d results are not exact\n", c->name, differ);
  }
  kr_emu_free(x), kr_emu_free(y), kr_emu_free(out);
  assert_int_equal(bad, 0);
}

typedef struct Special {
  int op;
  float x, y, want;  /* want NaN: the result must be NaN */
  const char *why;
} Special;

static void documented_special_cases_hold(void **state) {
  (void)state;
  const Special sp[] = {
    {9, 1.0f, 0x1.8p126f, 0.0f, "__fdividef gives 0 for 2^126 < |y| < 2^128"},
    {9, -3.0f, -0x1.fp127f, 0.0f, "__fdividef gives 0 for 2^126 < |y| < 2^128 (negative)"},
    {9, INFINITY, 0x1.8p126f, NAN, "__fdividef gives NaN for an infinite x and 2^126 < |y| < 2^128"},
    {9, 6.0f, 0x1p126f, 6.0f * 0x1p-126f, "__fdividef at |y| = 2^126 still divides"},
    {0, 0x1p-140f, 0, 1.0f, "__expf of a subnormal is 1"},
    {0, -200.0f, 0, 0.0f, "__expf underflows to 0"},
    {2, 0.0f, 0, -INFINITY, "__logf(0) is -inf"},
    {2, -1.0f, 0, NAN, "__logf of a negative is NaN"},
    {3, 0x1p-140f, 0, -140.0f, "__log2f of a subnormal is scaled, not flushed"},
    {3, 0.0f, 0, -INFINITY, "__log2f(0) is -inf"},
    {10, 0.0f, 0, INFINITY, "rsqrtf(0) is inf"},
    {10, INFINITY, 0, 0.0f, "rsqrtf(inf) is 0"},
    {11, NAN, 0, 0.0f, "__saturatef(NaN) is 0"},
    {11, 2.0f, 0, 1.0f, "__saturatef clamps to 1"},
    {5, INFINITY, 0, NAN, "__sinf(inf) is NaN"},
  };
  int n = (int)(sizeof sp / sizeof *sp);
  float *x = kr_emu_alloc_elems(1, 4, "x"), *y = kr_emu_alloc_elems(1, 4, "y");
  float *out = kr_emu_alloc_elems(1, 4, "out");
  int bad = 0;
  for (int i = 0; i < n; i++) {
    x[0] = sp[i].x, y[0] = sp[i].y;
    run_op(sp[i].op, 1, x, y, out);
    int ok = isnan(sp[i].want) ? isnan(out[0]) : out[0] == sp[i].want && signbit(out[0]) == signbit(sp[i].want);
    if (!ok) bad = 1, print_error("%s: got %a, wanted %a\n", sp[i].why, out[0], sp[i].want);
  }
  kr_emu_free(x), kr_emu_free(y), kr_emu_free(out);
  assert_int_equal(bad, 0);
}

/* Outside [-pi, pi] the argument's fp32 scaling to revolutions dominates: the error grows with |x|
 * (about |x| 2^-24), as the device's does, instead of staying at libm's 0.5 ulp. */
static void sinf_error_grows_outside_minus_pi_pi(void **state) {
  (void)state;
  int n = 4096;
  float *x = kr_emu_alloc_elems(n, 4, "x"), *y = kr_emu_alloc_elems(n, 4, "y");
  float *out = kr_emu_alloc_elems(n, 4, "out");
  for (int i = 0; i < n; i++) x[i] = 1000.0f + (float)i * 0.37f, y[i] = 0;
  run_op(5, n, x, y, out);
  double worst = 0;
  for (int i = 0; i < n; i++) worst = fmax(worst, fabs(out[i] - sin((double)x[i])));
  print_message("__sinf on [1000, 2515]: max absolute error %g\n", worst);
  kr_emu_free(x), kr_emu_free(y), kr_emu_free(out);
  assert_true(worst > 10 * pow(2, -21.41));
  assert_true(worst < 2600 * 0x1p-22);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_intrinsic_errs_within_its_bound_and_not_exactly),
    cmocka_unit_test(documented_special_cases_hold),
    cmocka_unit_test(sinf_error_grows_outside_minus_pi_pi),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
