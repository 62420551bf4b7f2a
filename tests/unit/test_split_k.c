/* tests/unit/test_split_k.c: the kernel split_k emits (tests/passes/split_k/basic.out.cu) on the
 * CPU emulator, with its blocks run in orders the verifier's runs never take: the emulator runs a
 * grid z-major, so there the last block of every tile to arrive is always the part z = PARTS - 1.
 * Here the blocks also run in reverse and in a shuffled order; the result must be the same bits
 * every time (the parts are added in a fixed order, whichever arrives last), the arrival counters
 * must be back at zero after each launch, and it must agree with a plain fp64 sum. A launch with
 * gridDim.z = 1 and no workspace is the unsplit kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/emu.h"

enum { M = 70, N = 45, K = 300, BM = 64, BN = 64, PARTS = 4, GX = (N + BN - 1) / BN, GY = (M + BM - 1) / BM };

typedef struct Mats {
  float *a, *b, *c, *ws;
  size_t ws_floats;
} Mats;

static KrEmuModule *build(void) {
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *path = KR_SOURCE_DIR "/tests/passes/split_k/basic.out.cu";
  char *text;
  size_t len;
  assert_int_equal(kr_file_read(path, a, &text, &len, d), KR_OK);
  const char *kernels[] = {"matmul"};
  KrEmuModule *m = NULL;
  KrStatus st = kr_emu_build(path, text, len, kernels, 1, NULL, &m, d);
  if (st != KR_OK) {
    KrBuf b = {0};
    kr_diags_format(d, &b);
    print_error("%s\n", b.data ? b.data : "");
    kr_buf_free(&b);
  }
  assert_int_equal(st, KR_OK);
  kr_diags_free(d);
  kr_arena_free(a);
  return m;
}

/* Runs the kernel over `blocks` (NULL: all, in the emulator's order) of a grid with `parts` in z. */
static void run(KrEmuModule *mod, Mats *x, unsigned parts, const uint64_t *blocks, size_t nblocks) {
  int m = M, n = N, k = K;
  float *ws = parts > 1 ? x->ws : NULL;
  void *args[] = {&m, &n, &k, &x->a, &x->b, &x->c, &ws};
  KrEmuLaunch l = {.kernel = "matmul", .grid = {GX, GY, parts}, .block = {256, 1, 1}, .args = args,
                   .nargs = 7, .blocks = blocks, .nblocks = nblocks};
  KrDiags *d = kr_diags_new();
  KrStatus st = kr_emu_run(mod, &l, 1, NULL, d);
  if (st != KR_OK) print_error("%s\n", d->items.len ? d->items.data[0].message : "");
  assert_int_equal(st, KR_OK);
  kr_diags_free(d);
}

static void counters_are_zero(const Mats *x) {
  const unsigned *arrived = (const unsigned *)(x->ws + (size_t)PARTS * GX * GY * BM * BN);
  for (int t = 0; t < GX * GY; t++) assert_int_equal(arrived[t], 0);
}

static void the_result_does_not_depend_on_which_block_arrives_last(void **state) {
  (void)state;
  KrEmuModule *mod = build();
  Mats x = {.ws_floats = (size_t)GX * GY * (PARTS * BM * BN + 1)};
  x.a = kr_emu_alloc_elems(M * K, 4, "A");
  x.b = kr_emu_alloc_elems(K * N, 4, "B");
  x.c = kr_emu_alloc_elems(M * N, 4, "C");
  x.ws = kr_emu_alloc_elems(x.ws_floats, 4, "workspace");
  assert_true(x.a && x.b && x.c && x.ws);
  srand(3);
  for (int i = 0; i < M * K; i++) x.a[i] = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
  for (int i = 0; i < K * N; i++) x.b[i] = 2.0f * (float)rand() / (float)RAND_MAX - 1.0f;
  memset(x.ws, 0, x.ws_floats * 4);
  uint64_t total = (uint64_t)GX * GY * PARTS, order[GX * GY * PARTS];
  float *first = malloc(M * N * sizeof *first);
  run(mod, &x, PARTS, NULL, 0);
  counters_are_zero(&x);
  memcpy(first, x.c, M * N * sizeof *first);
  double num = 0, den = 0;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < K; k++) s += (double)x.a[i * K + k] * x.b[k * N + j];
      num += (first[i * N + j] - s) * (first[i * N + j] - s), den += s * s;
    }
  assert_true(sqrt(num / den) < 1e-6);
  for (int pass = 0; pass < 3; pass++) {
    for (uint64_t i = 0; i < total; i++) order[i] = pass == 0 ? total - 1 - i : i;
    if (pass > 0) {   /* a shuffled order, a different one each pass */
      for (uint64_t i = total - 1; i > 0; i--) {
        uint64_t j = (uint64_t)rand() % (i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
      }
    }
    memset(x.c, 0, M * N * sizeof *x.c);
    run(mod, &x, PARTS, order, total);
    counters_are_zero(&x);
    assert_memory_equal(x.c, first, M * N * sizeof *first);
  }
  /* One part, no workspace: the k loop whole, the sum in the loop's own order. */
  run(mod, &x, 1, NULL, 0);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) s += x.a[i * K + k] * x.b[k * N + j];
      assert_true(x.c[i * N + j] == s);
    }
  free(first);
  kr_emu_free(x.a);
  kr_emu_free(x.b);
  kr_emu_free(x.c);
  kr_emu_free(x.ws);
  kr_emu_module_free(mod);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_result_does_not_depend_on_which_block_arrives_last),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
