/* bench/bench_frontend.c: how long parsing plus the kernel model takes on a 5,000-line file.
 * The file is made by concatenating the valid files of tests/corpus until it has at least 5,000
 * lines (duplicate names do not matter to the parser). Prints the median and min of 50 runs.
 *   bench_frontend [CORPUS_DIR] [LINES]
 * Target: under 20 ms on the 2-core development machine. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/model.h"

/* CPU time of this thread: other work on a shared machine does not inflate it. */
#ifndef KR_BENCH_CLOCK
#define KR_BENCH_CLOCK CLOCK_THREAD_CPUTIME_ID
#endif

static double now_ms(void) {
  struct timespec t;
  clock_gettime(KR_BENCH_CLOCK, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static size_t count_lines(const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += s[i] == '\n';
  return k;
}

/* Appends valid corpus files (not broken_*) to out until it has `lines` lines. */
static void build_input(const char *dir, size_t lines, KrBuf *out, KrArena *a) {
  while (count_lines(out->data ? out->data : "", out->len) < lines) {
    DIR *d = opendir(dir);
    if (!d) {
      fprintf(stderr, "bench_frontend: cannot open %s\n", dir);
      exit(2);
    }
    size_t before = out->len;
    for (struct dirent *e; count_lines(out->data ? out->data : "", out->len) < lines && (e = readdir(d));) {
      size_t n = strlen(e->d_name);
      if (n < 4 || strcmp(e->d_name + n - 3, ".cu") || strncmp(e->d_name, "broken_", 7) == 0) continue;
      char path[1024], *text;
      size_t len;
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      KrDiags *dg = kr_diags_new();
      if (kr_file_read(path, a, &text, &len, dg) == KR_OK) kr_buf_append(out, text, len);
      kr_diags_free(dg);
    }
    closedir(d);
    if (out->len == before) exit(2);
  }
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/corpus";
  size_t lines = argc > 2 ? (size_t)atol(argv[2]) : 5000;
  KrArena *a = kr_arena_new();
  KrBuf input = {0};
  build_input(dir, lines, &input, a);
  enum { RUNS = 50 };
  double t[RUNS], tp[RUNS];
  size_t kernels = 0, errors = 0;
  for (int r = 0; r < RUNS; r++) {
    KrArena *ra = kr_arena_new();
    KrDiags *d = kr_diags_new();
    KrSource src;
    double t0 = now_ms();
    kr_source_from_text(&src, "bench.cu", input.data, input.len, ra, d);
    KrTree *tree = kr_tree_parse(&src, d);
    tp[r] = now_ms() - t0;
    KrModel *m = kr_model_new(tree, ra);
    t[r] = now_ms() - t0;
    kernels = m->kernels.len;
    errors = d->nerrors;
    kr_tree_free(tree);
    kr_diags_free(d);
    kr_arena_free(ra);
  }
  qsort(t, RUNS, sizeof t[0], cmp_double);
  qsort(tp, RUNS, sizeof tp[0], cmp_double);
  printf("{\"bench\": \"frontend\", \"lines\": %zu, \"bytes\": %zu, \"kernels\": %zu, "
         "\"syntax_errors\": %zu, \"runs\": %d, \"median_ms\": %.3f, \"min_ms\": %.3f, "
         "\"max_ms\": %.3f, \"parse_only_median_ms\": %.3f, \"target_ms\": 20}\n",
         count_lines(input.data, input.len), input.len, kernels, errors, RUNS, t[RUNS / 2], t[0],
         t[RUNS - 1], tp[RUNS / 2]);
  kr_buf_free(&input);
  kr_arena_free(a);
  return t[RUNS / 2] < 20.0 ? 0 : 1;
}
