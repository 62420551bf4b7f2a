/* tests/unit/test_fill.c: the input generator (runtime/fill.h, runtime/fill/kr_fill.h): every
 * element a pure function of (seed, stream, i), whatever the chunks and threads; values checked
 * against an implementation written here (a sequential splitmix64 stream, the C library's log and
 * cos); sane moments; poison patterns; and the GPU's fill module compiled without fused
 * multiply-adds (when nvcc is present). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backend/nvcc.h"
#include "base/proc.h"
#include "runtime/fill.h"
#include "runtime/fill/kr_fill.h"
#include "runtime/fill_module.h"

/* ---- An independent generator: splitmix64 run as a sequence from the key -------------------------- */

typedef struct Seq {
  uint64_t state;
} Seq;

static uint64_t seq_next(Seq *s) {
  uint64_t z = (s->state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static Seq seq_start(uint64_t seed, uint64_t stream) {
  Seq k = {0};
  k.state = (seed * 0x9e3779b97f4a7c15ull ^ (stream + 1) * 0xc2b2ae3d27d4eb4full) - 0x9e3779b97f4a7c15ull;
  Seq s = {seq_next(&k)};   /* the key: the finaliser of the mixed seed */
  return s;
}

static double seq_unit(Seq *s) { return ldexp((double)(seq_next(s) >> 11), -53); }

static float *filled(KrFillKind kind, double a, double b, size_t n, uint64_t seed, uint64_t stream) {
  float *x = malloc(n * sizeof *x);
  assert_non_null(x);
  kr_fill_generate(x, KR_DT_F32, n, kind, a, b, seed, stream);
  return x;
}

/* ---- Pure function of (seed, stream, i) ------------------------------------------------------------ */

static void uniform_matches_a_sequential_splitmix64_stream(void **state) {
  (void)state;
  size_t n = 5000;
  float *x = filled(KR_FILL_UNIFORM, -1, 1, n, 7, 3);
  Seq s = seq_start(7, 3);
  for (size_t i = 0; i < n; i++) assert_true(x[i] == (float)(-1.0 + 2.0 * seq_unit(&s)));
  free(x);
}

static void ints_match_a_sequential_splitmix64_stream(void **state) {
  (void)state;
  size_t n = 4000;
  int32_t *x = malloc(n * sizeof *x);
  kr_fill_generate(x, KR_DT_I32, n, KR_FILL_INTS, -3, 9, 11, 0);
  Seq s = seq_start(11, 0);
  bool seen[13] = {0};
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(x[i], -3 + (int32_t)(seq_next(&s) % 13));
    seen[x[i] + 3] = true;
  }
  for (int v = 0; v < 13; v++) assert_true(seen[v]);   /* both ends of [lo, hi] included */
  kr_fill_generate(x, KR_DT_I32, 10, KR_FILL_INTS, 5, 2, 11, 0);   /* hi below lo: defined, lo */
  for (int i = 0; i < 10; i++) assert_int_equal(x[i], 5);
  free(x);
}

static void normal_matches_box_muller_with_the_c_library(void **state) {
  (void)state;
  size_t n = 20000;
  double *x = malloc(n * sizeof *x);
  /* As f64 values would be: filled into i64 would truncate, so compare through f32 instead. */
  float *f = filled(KR_FILL_NORMAL, 2, 3, n, 5, 1);
  Seq s = seq_start(5, 1);
  for (size_t i = 0; i < n; i++) {
    double u = seq_unit(&s), v = seq_unit(&s);
    x[i] = 2 + 3 * (sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v));
    assert_true(fabs((double)f[i] - x[i]) <= 1e-6 * fmax(1, fabs(x[i])));
  }
  free(x);
  free(f);
}

static void log_and_cos_are_within_a_few_ulp_of_the_c_library(void **state) {
  (void)state;
  Seq s = seq_start(1, 99);
  for (int k = 0; k < 200000; k++) {
    double u = seq_unit(&s), x = 1.0 - u, t = seq_unit(&s);
    double l = log(x), c = cos(2 * M_PI * t);
    assert_true(fabs(kr_gen_log(x) - l) <= 4 * DBL_EPSILON * fmax(fabs(l), 1e-300) + 1e-300);
    assert_true(fabs(kr_gen_cos_turn(t) - c) <= 8 * DBL_EPSILON);
  }
  assert_true(kr_gen_log(1.0) == 0.0);
  assert_true(kr_gen_cos_turn(0.0) == 1.0);
  assert_true(fabs(kr_gen_log(0x1.0p-53) - log(0x1.0p-53)) < 1e-13);
}

static void pinned_values_do_not_drift(void **state) {
  (void)state;
  /* Seed 1, stream 0: the first inputs of every verification. The literals were computed by a
   * third implementation (Python integers, its math.log and math.cos); change them only with the
   * generator, on purpose. */
  float *u = filled(KR_FILL_UNIFORM, -1, 1, 3, 1, 0), *z = filled(KR_FILL_NORMAL, 0, 1, 3, 1, 0);
  Seq s = seq_start(1, 0);
  for (int i = 0; i < 3; i++) assert_true(u[i] == (float)(-1.0 + 2.0 * seq_unit(&s)));
  assert_int_equal(kr_gen_key(1, 0), seq_start(1, 0).state);
  assert_int_equal(kr_gen_key(1, 0), 0x9f8c483a1cd5b002ull);
  assert_int_equal(kr_gen_bits(kr_gen_key(1, 0), 0), 0x29cbf4ca20e67d01ull);
  assert_true(u[0] == -0x1.58d02cp-1f && u[1] == 0x1.8694eap-1f && u[2] == -0x1.b01af6p-3f);
  assert_true(z[0] == 0x1.c16f1ap-2f && z[1] == 0x1.a8291cp-1f && z[2] == -0x1.9fab16p+0f);
  free(u);
  free(z);
}

static void chunks_and_threads_do_not_change_the_values(void **state) {
  (void)state;
  /* 2.5 chunks: filled by several threads, in pieces they take in any order. */
  size_t n = (size_t)5 << 19, small = 1000;
  for (int kind = KR_FILL_UNIFORM; kind <= KR_FILL_INTS; kind++) {
    float *big = filled((KrFillKind)kind, -4, 4, n, 3, 2), *head = filled((KrFillKind)kind, -4, 4, small, 3, 2);
    assert_memory_equal(big, head, small * sizeof *big);
    uint64_t key = kr_gen_key(3, 2);
    for (size_t i = 0; i < n; i += 9973) {
      float one;
      kr_gen_store(&one, KR_GEN_F32, 0, kr_gen_value(key, kr_fill_gen_kind((KrFillKind)kind), -4, 4, i));
      assert_memory_equal(&one, &big[i], sizeof one);
    }
    free(big);
    free(head);
  }
}

static void streams_and_seeds_differ(void **state) {
  (void)state;
  size_t n = 1000;
  float *a = filled(KR_FILL_UNIFORM, 0, 1, n, 1, 0), *b = filled(KR_FILL_UNIFORM, 0, 1, n, 1, 1),
        *c = filled(KR_FILL_UNIFORM, 0, 1, n, 1001, 0);
  size_t same_ab = 0, same_ac = 0;
  for (size_t i = 0; i < n; i++) same_ab += a[i] == b[i], same_ac += a[i] == c[i];
  assert_true(same_ab < 3 && same_ac < 3);
  free(a), free(b), free(c);
}

/* ---- Distributions --------------------------------------------------------------------------------- */

static void normal_fill_has_sane_moments(void **state) {
  (void)state;
  size_t n = 1 << 21;
  float *x = filled(KR_FILL_NORMAL, 1.5, 2, n, 9, 4);
  double m1 = 0, m2 = 0, m3 = 0, m4 = 0;
  for (size_t i = 0; i < n; i++) {
    double z = (x[i] - 1.5) / 2;
    m1 += z, m2 += z * z, m3 += z * z * z, m4 += z * z * z * z;
  }
  m1 /= (double)n, m2 /= (double)n, m3 /= (double)n, m4 /= (double)n;
  assert_true(fabs(m1) < 0.005);
  assert_true(fabs(m2 - 1) < 0.005);
  assert_true(fabs(m3) < 0.02);
  assert_true(fabs(m4 - 3) < 0.03);
  free(x);
}

static void uniform_fill_stays_in_range_with_a_flat_histogram(void **state) {
  (void)state;
  size_t n = 1 << 20;
  float *x = filled(KR_FILL_UNIFORM, -2, 6, n, 2, 0);
  size_t bins[16] = {0};
  for (size_t i = 0; i < n; i++) {
    assert_true(x[i] >= -2 && x[i] <= 6);
    bins[(int)((x[i] + 2) * 2) & 15]++;
  }
  for (int k = 0; k < 16; k++) assert_true(fabs((double)bins[k] / (double)n - 1.0 / 16) < 0.002);
  free(x);
}

/* ---- Element types and poison --------------------------------------------------------------------- */

static void every_dtype_stores_the_rounded_value(void **state) {
  (void)state;
  size_t n = 257;
  float f[257];
  uint16_t h[257], bf[257];
  int64_t l[257];
  kr_fill_generate(f, KR_DT_F32, n, KR_FILL_UNIFORM, -1000, 1000, 4, 4);
  kr_fill_generate(h, KR_DT_F16, n, KR_FILL_UNIFORM, -1000, 1000, 4, 4);
  kr_fill_generate(bf, KR_DT_BF16, n, KR_FILL_UNIFORM, -1000, 1000, 4, 4);
  kr_fill_generate(l, KR_DT_I64, n, KR_FILL_UNIFORM, -1000, 1000, 4, 4);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(h[i], kr_f32_to_f16(f[i]));
    assert_int_equal(bf[i], kr_f32_to_bf16(f[i]));
    assert_true(fabs((double)l[i] - f[i]) < 1.0);
  }
  assert_int_equal(kr_gen_i32(3e9), INT32_MAX);
  assert_int_equal(kr_gen_i32(-3e9), INT32_MIN);
  assert_int_equal(kr_gen_i32(NAN), 0);
  assert_int_equal(kr_gen_i32(-2.75), -2);
  assert_true(kr_gen_i64(1e300) == INT64_MAX);
}

static void poison_writes_nan_and_the_integer_sentinel(void **state) {
  (void)state;
  size_t n = (size_t)3 << 19;   /* more than one chunk */
  float *f = malloc(n * sizeof *f);
  uint16_t h[5], b[5];
  int32_t i[5];
  kr_fill_poison(f, KR_DT_F32, n);
  kr_fill_poison(h, KR_DT_F16, 5);
  kr_fill_poison(b, KR_DT_BF16, 5);
  kr_fill_poison(i, KR_DT_I32, 5);
  for (size_t k = 0; k < n; k++) assert_true(isnan(f[k]));
  for (int k = 0; k < 5; k++) {
    assert_true(isnan(kr_f16_to_f32(h[k])) && h[k] == kr_f32_to_f16(NAN));
    assert_true(isnan(kr_bf16_to_f32(b[k])) && b[k] == kr_f32_to_bf16(NAN));
    assert_int_equal((uint32_t)i[k], 0x5a5a5a5au);
  }
  free(f);
}

/* ---- The GPU's fill module ----------------------------------------------------------------------- */

static void fill_module_holds_the_generator_and_both_kernels(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  size_t len;
  const char *t = kr__fill_module_text(a, &len);
  assert_true(len > 1000 && strlen(t) == len);
  assert_non_null(strstr(t, "KR_GEN_FN double kr_gen_value("));
  assert_non_null(strstr(t, "__global__ void kr_fill("));
  assert_non_null(strstr(t, "__global__ void kr_fill_check("));
  kr_arena_free(a);
}

/* nvcc with the module's flags makes PTX in which every double multiply and add carries an
 * explicit rounding (.rn, which ptxas never contracts) and no fma is left. */
static void fill_module_compiles_without_fused_multiply_adds(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *nvcc;
  if (kr_nvcc_find(&nvcc, a, d) != KR_OK) {
    kr_diags_free(d);
    kr_arena_free(a);
    skip();
  }
  char dir[] = "/tmp/kr-test-fill.XXXXXX";
  assert_non_null(mkdtemp(dir));
  size_t len;
  const char *text = kr__fill_module_text(a, &len);
  const char *in = kr_arena_printf(a, "%s/kr_fill.cu", dir), *out = kr_arena_printf(a, "%s/f.ptx", dir);
  assert_true(kr_file_write(in, text, len));
  const char *argv[] = {nvcc, "-arch=sm_90", "-ptx", "-std=c++17", "-O3", KR_FILL_MODULE_FLAG, "-o", out, in, NULL};
  KrBuf log = {0};
  KrProcResult res;
  assert_int_equal(kr_proc_run(argv, NULL, 300, &log, NULL, &res), KR_OK);
  if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) fail_msg("nvcc: %s", log.data ? log.data : "");
  char *ptx;
  size_t plen;
  assert_int_equal(kr_file_read(out, a, &ptx, &plen, d), KR_OK);
  assert_null(strstr(ptx, "fma."));
  assert_non_null(strstr(ptx, "mul.rn.f64"));
  assert_null(strstr(ptx, "mul.f64"));
  assert_null(strstr(ptx, "add.f64"));
  assert_null(strstr(ptx, "sub.f64"));
  kr_buf_free(&log);
  kr_dir_remove(dir);
  KrCubin cubin;
  assert_int_equal(kr__fill_module_build("sm_90", a, &cubin, d), KR_OK);
  assert_true(cubin.size > 0 && cubin.kernels.len == 2);
  kr_diags_free(d);
  kr_arena_free(a);
}


/* CSR structure: rows of distinct columns in increasing order, both for rows far sparser than the
 * column count (Floyd's sampling: a million columns must not cost a walk over each) and for dense
 * ones (selection sampling). */
static void csr_rows_hold_distinct_increasing_columns(void **state) {
  (void)state;
  const int64_t shapes[][3] = {{2000, 1000000, 64000}, {300, 10, 2400}, {50, 40, 1000}};
  for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    size_t rows = (size_t)shapes[k][0];
    int64_t cols = shapes[k][1], nnz = shapes[k][2];
    KrBufferSpec rp = {.name = "rowptr", .dtype = KR_DT_I32, .fill = {.kind = KR_FILL_CSR_ROWPTR}};
    KrBufferSpec ci = {.name = "colind", .dtype = KR_DT_I32, .fill = {.kind = KR_FILL_CSR_COLIND}};
    int32_t *ptr = malloc((rows + 1) * sizeof *ptr), *col = malloc((size_t)nnz * sizeof *col);
    assert_null(kr_fill_buffer(&rp, ptr, rows + 1, 5, 1, NULL, KR_DT_I32, rows, cols, nnz));
    assert_null(kr_fill_buffer(&ci, col, (size_t)nnz, 5, 2, ptr, KR_DT_I32, rows, cols, nnz));
    assert_int_equal(ptr[0], 0);
    assert_int_equal(ptr[rows], nnz);
    for (size_t r = 0; r < rows; r++) {
      assert_true(ptr[r] <= ptr[r + 1]);
      for (int32_t e = ptr[r]; e < ptr[r + 1]; e++) {
        assert_true(col[e] >= 0 && col[e] < cols);
        if (e > ptr[r]) assert_true(col[e] > col[e - 1]);
      }
    }
    free(ptr);
    free(col);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(uniform_matches_a_sequential_splitmix64_stream),
    cmocka_unit_test(csr_rows_hold_distinct_increasing_columns),
    cmocka_unit_test(ints_match_a_sequential_splitmix64_stream),
    cmocka_unit_test(normal_matches_box_muller_with_the_c_library),
    cmocka_unit_test(log_and_cos_are_within_a_few_ulp_of_the_c_library),
    cmocka_unit_test(pinned_values_do_not_drift),
    cmocka_unit_test(chunks_and_threads_do_not_change_the_values),
    cmocka_unit_test(streams_and_seeds_differ),
    cmocka_unit_test(normal_fill_has_sane_moments),
    cmocka_unit_test(uniform_fill_stays_in_range_with_a_flat_histogram),
    cmocka_unit_test(every_dtype_stores_the_rounded_value),
    cmocka_unit_test(poison_writes_nan_and_the_integer_sentinel),
    cmocka_unit_test(fill_module_holds_the_generator_and_both_kernels),
    cmocka_unit_test(fill_module_compiles_without_fused_multiply_adds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
