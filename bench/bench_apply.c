/* bench/bench_apply.c: how long a six-pass recipe takes on a 1,000-line file, without nvcc.
 * The file is four example kernels (conv2d, softmax, relu_gelu, matmul) followed by valid
 * corpus files until it has at least 1,000 lines; the recipe applies restrict, ldg,
 * index_precompute, unroll, vectorize and fast_math (each once, to the kernel it suits), so the
 * time covers the Lua sandbox, six passes, six incremental re-parses and the model rebuilds.
 *   bench_apply [SOURCE_ROOT]
 * Prints the median and min of 30 runs (thread CPU time). Target: under 50 ms. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recipes/recipe.h"

static const char *recipe =
  "kr.allow_lowering()\n"
  "kr.kernel('conv2d'):apply('restrict')\n"
  "kr.kernel('conv2d'):apply('ldg', { params = { 'x', 'w', 'b' } })\n"
  "kr.kernel('conv2d'):apply('index_precompute')\n"
  "kr.kernel('matmul'):apply('unroll', { var = 'k', factor = 4 })\n"
  "kr.kernel('gelu'):apply('vectorize', { width = 4 })\n"
  "kr.kernel('softmax'):apply('fast_math', { ops = { 'exp', 'div' } })\n";

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static size_t lines_of(const KrBuf *b) {
  size_t k = 0;
  for (size_t i = 0; i < b->len; i++) k += b->data[i] == '\n';
  return k;
}

static void append_file(KrBuf *out, const char *path, KrArena *a) {
  char *text;
  size_t len;
  KrDiags *d = kr_diags_new();
  if (kr_file_read(path, a, &text, &len, d) != KR_OK) {
    fprintf(stderr, "bench_apply: cannot read %s\n", path);
    exit(2);
  }
  kr_buf_append(out, text, len);
  kr_diags_free(d);
}

static void build_input(const char *root, KrBuf *out, KrArena *a) {
  static const char *const ex[] = {"conv2d", "softmax", "relu_gelu", "matmul"};
  char path[1024];
  for (int i = 0; i < 4; i++) {
    snprintf(path, sizeof path, "%s/examples/%s/kernel.cu", root, ex[i]);
    append_file(out, path, a);
  }
  snprintf(path, sizeof path, "%s/tests/corpus", root);
  DIR *d = opendir(path);
  for (struct dirent *e; d && lines_of(out) < 1000 && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 4 || strcmp(e->d_name + n - 3, ".cu") || strncmp(e->d_name, "broken_", 7) == 0) continue;
    char f[2048];
    snprintf(f, sizeof f, "%s/%s", path, e->d_name);
    append_file(out, f, a);
  }
  if (d) closedir(d);
}

int main(int argc, char **argv) {
  const char *root = argc > 1 ? argv[1] : ".";
  KrArena *a = kr_arena_new();
  KrBuf input = {0};
  build_input(root, &input, a);
  KrRecipeOptions opt;
  kr_recipe_options_init(&opt, a);
  enum { RUNS = 30 };
  double t[RUNS];
  size_t passes = 0;
  for (int r = 0; r < RUNS; r++) {
    KrDiags *d = kr_diags_new();
    KrRecipeRun *run = NULL;
    double t0 = now_ms();
    KrStatus s = kr_recipe_apply("bench.lua", recipe, strlen(recipe), "bench.cu", input.data,
                                 input.len, &opt, &run, d);
    t[r] = now_ms() - t0;
    if (s != KR_OK) {
      KrBuf m = {0};
      kr_diags_format(d, &m);
      fprintf(stderr, "bench_apply: the recipe failed:\n%s", m.data ? m.data : "");
      return 2;
    }
    passes = run->records.len;
    kr_recipe_run_free(run);
    kr_diags_free(d);
  }
  qsort(t, RUNS, sizeof t[0], cmp_double);
  printf("{\"bench\": \"apply\", \"lines\": %zu, \"passes\": %zu, \"runs\": %d, \"median_ms\": %.3f, "
         "\"min_ms\": %.3f, \"max_ms\": %.3f, \"target_ms\": 50}\n",
         lines_of(&input), passes, RUNS, t[RUNS / 2], t[0], t[RUNS - 1]);
  kr_buf_free(&input);
  kr_arena_free(a);
  return t[RUNS / 2] < 50.0 ? 0 : 1;
}
