/* tests/unit/test_profile.c: profiling feedback (search/profile.h) without a GPU or ncu: reading
 * ncu's `--csv --page raw` output, the classification into compute-, memory-bandwidth- and
 * latency-bound with its boundaries, that only the class's metrics are kept, the prompt text and
 * the JSON, what ncu's failures are turned into, and finding ncu. The CSV fixtures in
 * tests/fixtures/ncu/ follow ncu's layout (header row, units row, one row per launch, ==PROF==
 * lines around them) and were written by hand until they are replaced by output captured on the
 * GPU machine; the classification tests also build tables from the metric list itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/proc.h"
#include "search/profile.h"

#define FIXTURES KR_SOURCE_DIR "/tests/fixtures/ncu"
#define SOL_C "sm__throughput.avg.pct_of_peak_sustained_elapsed"
#define SOL_M "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"

/* ---- Helpers ------------------------------------------------------------------------------------- */

typedef struct Fix {
  KrArena *a;
  KrDiags *d;
  KrProfile p;
} Fix;

static int fix_setup(void **state) {
  Fix *f = calloc(1, sizeof *f);
  f->a = kr_arena_new();
  f->d = kr_diags_new();
  *state = f;
  return 0;
}

static int fix_teardown(void **state) {
  Fix *f = *state;
  kr_diags_free(f->d);
  kr_arena_free(f->a);
  free(f);
  return 0;
}

static const char *first_error(const Fix *f) {
  for (size_t i = 0; i < f->d->items.len; i++)
    if (f->d->items.data[i].severity == KR_DIAG_ERROR) return f->d->items.data[i].message;
  return "";
}

static KrStatus parse_text(Fix *f, const char *text) {
  return kr_profile_parse_csv(text, strlen(text), f->a, &f->p, f->d);
}

static void parse_fixture(Fix *f, const char *name) {
  char *text;
  size_t len;
  const char *path = kr_arena_printf(f->a, "%s/%s", FIXTURES, name);
  assert_int_equal(kr_file_read(path, f->a, &text, &len, f->d), KR_OK);
  assert_int_equal(kr_profile_parse_csv(text, len, f->a, &f->p, f->d), KR_OK);
}

static void classify_fixture(Fix *f, const char *name) {
  parse_fixture(f, name);
  assert_int_equal(kr_profile_classify(&f->p, f->a, f->d), KR_OK);
}

static const KrProfileMetric *metric(const KrProfileMetrics *ms, const char *name) {
  for (size_t i = 0; i < ms->len; i++)
    if (strcmp(ms->data[i].name, name) == 0) return &ms->data[i];
  return NULL;
}

static bool kept(const Fix *f, const char *name) { return metric(&f->p.metrics, name) != NULL; }

/* A table in ncu's layout with every metric of the list: the two SOL values given, every other
 * metric i + 1, durations in nsecond. */
static const char *table_with(KrArena *a, double compute_sol, double memory_sol) {
  KrBuf b = {0};
  char *list = kr_arena_strdup(a, kr_profile_metric_list(a));
  KrBuf units = {0}, row = {0};
  kr_buf_puts(&b, "\"ID\",\"Kernel Name\"");
  kr_buf_puts(&units, "\"\",\"\"");
  kr_buf_puts(&row, "\"0\",\"k(float *)\"");
  int i = 0;
  for (char *name = strtok(list, ","); name; name = strtok(NULL, ","), i++) {
    double v = strcmp(name, SOL_C) == 0 ? compute_sol : strcmp(name, SOL_M) == 0 ? memory_sol : i + 1;
    kr_buf_printf(&b, ",\"%s\"", name);
    kr_buf_printf(&units, ",\"%s\"", strstr(name, "duration") ? "nsecond" : "%");
    kr_buf_printf(&row, ",\"%g\"", v);
  }
  const char *r = kr_arena_printf(a, "%s\n%s\n%s\n", b.data, units.data, row.data);
  kr_buf_free(&b);
  kr_buf_free(&units);
  kr_buf_free(&row);
  return r;
}

static KrBound bound_of_table(Fix *f, double compute_sol, double memory_sol) {
  f->p = (KrProfile){0};
  assert_int_equal(parse_text(f, table_with(f->a, compute_sol, memory_sol)), KR_OK);
  assert_int_equal(kr_profile_classify(&f->p, f->a, f->d), KR_OK);
  return f->p.bound;
}

/* ---- Reading the CSV ------------------------------------------------------------------------------ */

static void csv_skips_prof_lines_and_reads_the_units_row(void **state) {
  Fix *f = *state;
  parse_fixture(f, "vector_add_memory.csv");
  assert_int_equal(f->p.launches.len, 1);
  const KrProfileLaunch *l = &f->p.launches.data[0];
  assert_string_equal(l->id, "0");
  assert_string_equal(l->kernel, "vector_add(int, float, float *, float *, float *)");
  assert_string_equal(l->grid, "(65536, 1, 1)");
  assert_string_equal(l->block, "(256, 1, 1)");
  assert_int_equal(l->metrics.len, 28);     /* the metric columns, not the 11 info columns */
  const KrProfileMetric *m = metric(&l->metrics, SOL_M);
  assert_string_equal(m->unit, "%");
  assert_true(fabs(m->value - 87.12) < 1e-9);
  assert_string_equal(metric(&l->metrics, "launch__registers_per_thread")->unit, "register/thread");
}

static void csv_reads_thousands_separators_and_normalises_units(void **state) {
  Fix *f = *state;
  parse_fixture(f, "vector_add_memory.csv");
  const KrProfileLaunch *l = &f->p.launches.data[0];
  const KrProfileMetric *t = metric(&l->metrics, "gpu__time_duration.sum");   /* "56,128" nsecond */
  assert_string_equal(t->unit, "nsecond");
  assert_true(fabs(t->value - 56128) < 1e-9);
  assert_true(fabs(l->duration_ms - 0.056128) < 1e-12);
  const KrProfileMetric *rd = metric(&l->metrics, "dram__bytes_read.sum");    /* "134.22" Mbyte */
  assert_string_equal(rd->unit, "byte");
  assert_true(fabs(rd->value - 134.22e6) < 1e-3);
}

static void csv_reads_quoted_names_several_launches_and_crlf(void **state) {
  Fix *f = *state;
  parse_fixture(f, "conv_relu_two_launches.csv");
  assert_int_equal(f->p.launches.len, 2);
  assert_string_equal(f->p.launches.data[0].kernel, "relu(float *, int)");
  assert_string_equal(f->p.launches.data[1].kernel,
                      "void conv2d<3, \"same\">(const float *, const float *, float *, int, int)");
  assert_string_equal(f->p.launches.data[1].grid, "(32, 32, 8)");
  /* "1,250.50" usecond and "12.35" usecond */
  assert_true(fabs(f->p.launches.data[1].duration_ms - 1.2505) < 1e-12);
  assert_true(fabs(f->p.launches.data[0].duration_ms - 0.01235) < 1e-12);
}

static void csv_reads_na_as_missing(void **state) {
  Fix *f = *state;
  parse_fixture(f, "reduce_latency.csv");
  const KrProfileLaunch *l = &f->p.launches.data[0];
  const char *tensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active";
  assert_true(isnan(metric(&l->metrics, tensor)->value));
  assert_true(fabs(metric(&l->metrics, SOL_C)->value - 12.64) < 1e-9);
}

static void csv_without_a_header_is_an_error(void **state) {
  Fix *f = *state;
  assert_int_equal(parse_text(f, "==PROF== Connected to process 1\n\"a\",\"b\"\n==ERROR== boom\n"), KR_ERR);
  assert_non_null(strstr(first_error(f), "no CSV table"));
}

static void csv_header_without_launches_is_an_error(void **state) {
  Fix *f = *state;
  assert_int_equal(parse_text(f, "\"ID\",\"Kernel Name\",\"" SOL_C "\"\n\"\",\"\",\"%\"\n"), KR_ERR);
  assert_non_null(strstr(first_error(f), "no kernel launches"));
}

static void csv_row_of_the_wrong_width_is_an_error(void **state) {
  Fix *f = *state;
  const char *text = "\"ID\",\"Kernel Name\",\"" SOL_C "\"\n\"\",\"\",\"%\"\n\"0\",\"k\"\n";
  assert_int_equal(parse_text(f, text), KR_ERR);
  assert_non_null(strstr(first_error(f), "line 3: 2 fields where the header has 3"));
}

static void csv_unclosed_quote_in_the_table_is_an_error(void **state) {
  Fix *f = *state;
  assert_int_equal(parse_text(f, "\"ID\",\"Kernel Name\",\"x__y\"\n\"0\",\"k(int,\n"), KR_ERR);
  assert_non_null(strstr(first_error(f), "line 2: a quoted field is not closed"));
}

/* ---- Classifying ----------------------------------------------------------------------------------- */

static void bound_boundaries_follow_the_sixty_percent_rule(void **state) {
  (void)state;
  static const struct {
    double c, m;
    KrBound want;
  } cases[] = {
    {10, 60, KR_BOUND_MEMORY},   {10, 59.99, KR_BOUND_LATENCY}, {60, 59.9, KR_BOUND_COMPUTE},
    {60, 60, KR_BOUND_MEMORY},   {70, 70, KR_BOUND_MEMORY},     {75, 74.9, KR_BOUND_COMPUTE},
    {59.9, 59.9, KR_BOUND_LATENCY}, {0, 0, KR_BOUND_LATENCY},   {100, 100, KR_BOUND_MEMORY},
    {61, 95, KR_BOUND_MEMORY},   {95, 61, KR_BOUND_COMPUTE},    {59.99, 10, KR_BOUND_LATENCY},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (kr_profile_bound(cases[i].c, cases[i].m) != cases[i].want)
      fail_msg("compute %g, memory %g: got %s", cases[i].c, cases[i].m,
               kr_profile_bound_name(kr_profile_bound(cases[i].c, cases[i].m)));
  }
  assert_string_equal(kr_profile_bound_name(KR_BOUND_MEMORY), "memory-bandwidth-bound");
  assert_string_equal(kr_profile_bound_name(KR_BOUND_COMPUTE), "compute-bound");
  assert_string_equal(kr_profile_bound_name(KR_BOUND_LATENCY), "latency-bound");
}

static void tables_classify_at_the_boundaries(void **state) {
  Fix *f = *state;
  assert_int_equal(bound_of_table(f, 20, 60), KR_BOUND_MEMORY);
  assert_int_equal(bound_of_table(f, 60, 60), KR_BOUND_MEMORY);
  assert_int_equal(bound_of_table(f, 60, 59.5), KR_BOUND_COMPUTE);
  assert_int_equal(bound_of_table(f, 59.5, 59.5), KR_BOUND_LATENCY);
}

static void each_fixture_gets_its_class(void **state) {
  Fix *f = *state;
  classify_fixture(f, "vector_add_memory.csv");
  assert_int_equal(f->p.bound, KR_BOUND_MEMORY);
  assert_string_equal(f->p.why, "memory SOL 87.1% >= 60% and >= compute SOL 14.2%");
  f->p = (KrProfile){0};
  classify_fixture(f, "reduce_latency.csv");
  assert_int_equal(f->p.bound, KR_BOUND_LATENCY);
  assert_string_equal(f->p.why, "compute SOL 12.6% and memory SOL 21.7%, both below 60% of peak");
}

/* Captured on the H200 (2026-11-29, ncu of CUDA 13.0, `bench/h200.sh profile`): what the real ncu
 * prints, device attributes and all, for examples/vector_add and examples/reduce_sum. */
static void captured_h200_output_is_read_and_classified(void **state) {
  Fix *f = *state;
  classify_fixture(f, "h200_vector_add.csv");
  assert_int_equal(f->p.launches.len, 1);
  assert_string_equal(f->p.kernel, "vector_add(int, float, float *, float *, float *)");
  assert_int_equal(f->p.bound, KR_BOUND_MEMORY);
  assert_string_equal(f->p.why, "memory SOL 68.4% >= 60% and >= compute SOL 35.0%");
  assert_true(fabs(f->p.duration_ms - 0.057536) < 1e-9);
  f->p = (KrProfile){0};
  /* Two launches: reduce_partial (0.302 ms, both units busy) and reduce_final (0.370 ms, one
   * block: neither unit near its peak). The longer one is classified. */
  classify_fixture(f, "h200_reduce_sum.csv");
  assert_int_equal(f->p.launches.len, 2);
  assert_int_equal(f->p.launch, 1);
  assert_string_equal(f->p.kernel, "reduce_final(int, float *, float *)");
  assert_int_equal(f->p.bound, KR_BOUND_LATENCY);
  assert_true(fabs(f->p.launches.data[0].duration_ms - 0.302432) < 1e-9);
}

static void the_longest_launch_is_classified(void **state) {
  Fix *f = *state;
  classify_fixture(f, "conv_relu_two_launches.csv");
  assert_int_equal(f->p.launch, 1);   /* conv2d, 1.25 ms, not relu (memory-bound, 12 us) */
  assert_int_equal(f->p.bound, KR_BOUND_COMPUTE);
  assert_true(fabs(f->p.duration_ms - 1.2505) < 1e-12);
  assert_non_null(strstr(f->p.kernel, "conv2d<3"));
}

static void a_launch_without_sol_values_is_not_classified(void **state) {
  Fix *f = *state;
  assert_int_equal(parse_text(f, "\"ID\",\"Kernel Name\",\"" SOL_C "\",\"" SOL_M "\"\n"
                                 "\"0\",\"k\",\"n/a\",\"50\"\n"), KR_OK);
  assert_int_equal(kr_profile_classify(&f->p, f->a, f->d), KR_ERR);
  assert_non_null(strstr(first_error(f), "no value for " SOL_C " of kernel 'k'"));
}

static void only_the_memory_metrics_are_kept_when_memory_bound(void **state) {
  Fix *f = *state;
  assert_int_equal(bound_of_table(f, 10, 90), KR_BOUND_MEMORY);
  assert_true(kept(f, SOL_M));
  assert_true(kept(f, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
  assert_true(kept(f, "lts__throughput.avg.pct_of_peak_sustained_elapsed"));
  assert_true(kept(f, "l1tex__throughput.avg.pct_of_peak_sustained_active"));
  assert_true(kept(f, "dram__bytes_read.sum"));
  assert_false(kept(f, SOL_C));
  assert_false(kept(f, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"));
  assert_false(kept(f, "sm__warps_active.avg.pct_of_peak_sustained_active"));
  assert_false(kept(f, "launch__registers_per_thread"));
  assert_false(kept(f, "gpu__time_duration.sum"));
  assert_int_equal(f->p.metrics.len, 7);
}

static void only_the_compute_metrics_are_kept_when_compute_bound(void **state) {
  Fix *f = *state;
  assert_int_equal(bound_of_table(f, 90, 10), KR_BOUND_COMPUTE);
  assert_true(kept(f, SOL_C));
  assert_true(kept(f, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"));
  assert_true(kept(f, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"));
  assert_true(kept(f, "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"));
  assert_true(kept(f, "launch__registers_per_thread"));
  assert_false(kept(f, SOL_M));
  assert_false(kept(f, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
  assert_false(kept(f, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"));
  assert_int_equal(f->p.metrics.len, 6);
}

static void only_the_latency_metrics_are_kept_when_latency_bound(void **state) {
  Fix *f = *state;
  assert_int_equal(bound_of_table(f, 30, 30), KR_BOUND_LATENCY);
  assert_true(kept(f, "sm__warps_active.avg.pct_of_peak_sustained_active"));
  assert_true(kept(f, "launch__occupancy_limit_registers"));
  assert_true(kept(f, "launch__occupancy_limit_shared_mem"));
  assert_true(kept(f, "launch__registers_per_thread"));
  assert_true(kept(f, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"));
  assert_true(kept(f, "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"));
  assert_true(kept(f, "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"));
  assert_true(kept(f, "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"));
  assert_false(kept(f, SOL_C));
  assert_false(kept(f, SOL_M));
  assert_false(kept(f, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
  assert_false(kept(f, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"));
  assert_int_equal(f->p.metrics.len, 15);
}

/* ---- Text and JSON --------------------------------------------------------------------------------- */

static void prompt_text_names_the_class_and_its_metrics(void **state) {
  Fix *f = *state;
  classify_fixture(f, "vector_add_memory.csv");
  assert_string_equal(f->p.text,
    "profile (Nsight Compute, --clock-control none): memory-bandwidth-bound; memory SOL 87.1%, "
    "DRAM 86.9%, L2 41.9%, L1/TEX 24.4%, L2 hit rate 33.4%, DRAM read 134.2 MB, DRAM written "
    "67.1 MB\n"
    "  kernel 'vector_add(int, float, float *, float *, float *)', launch 1 of 1, 0.05613 ms; "
    "memory SOL 87.1% >= 60% and >= compute SOL 14.2%\n"
    "  hint: move fewer bytes or move them better (vector and read-only loads, reuse through "
    "shared memory or registers, fusion)\n");
}

static void prompt_text_lists_stalls_largest_first_and_skips_na(void **state) {
  Fix *f = *state;
  classify_fixture(f, "reduce_latency.csv");
  assert_non_null(strstr(f->p.text, "): latency-bound; achieved occupancy 23.8%, theoretical "
                                    "occupancy 50.0%, block limit (registers) 2, block limit "
                                    "(shared memory) 1, block limit (warps) 2, waves per SM 0.48, "
                                    "registers/thread 40, warp cycles per issued instruction 31.07\n"));
  assert_non_null(strstr(f->p.text, "  warp stalls (cycles per issued instruction, largest first): "
                                    "long scoreboard 14.62, barrier 9.85, short scoreboard 2.44, "
                                    "wait 1.77, LG throttle 0.30, MIO throttle 0.20\n"));
  assert_null(strstr(f->p.text, "math pipe"));   /* n/a */
  assert_null(strstr(f->p.text, "DRAM"));
}

static void prompt_text_names_the_longest_of_several_launches(void **state) {
  Fix *f = *state;
  classify_fixture(f, "conv_relu_two_launches.csv");
  assert_non_null(strstr(f->p.text, "): compute-bound; compute SOL 91.6%, issue slots busy 85.3%, "
                                    "IPC 3.41, FMA pipe 91.6%, tensor pipe 0.0%, registers/thread 72\n"));
  assert_non_null(strstr(f->p.text, ", launch 2 of 2 (the longest), 1.25 ms; compute SOL 91.6% >= "
                                    "60% and > memory SOL 45.0%\n"));
}

static void json_parses_and_records_the_class_and_every_launch(void **state) {
  Fix *f = *state;
  classify_fixture(f, "reduce_latency.csv");
  cJSON *j = cJSON_Parse(f->p.json);
  assert_non_null(j);
  assert_string_equal(cJSON_GetObjectItem(j, "tool")->valuestring, "ncu");
  assert_string_equal(cJSON_GetObjectItem(j, "clock_control")->valuestring, "none");
  assert_string_equal(cJSON_GetObjectItem(j, "class")->valuestring, "latency-bound");
  assert_string_equal(cJSON_GetObjectItem(j, "kernel")->valuestring,
                      "reduce_sum(const float *, float *, int)");
  assert_true(fabs(cJSON_GetObjectItem(j, "duration_ms")->valuedouble - 0.018944) < 1e-9);
  const cJSON *ms = cJSON_GetObjectItem(j, "metrics");
  assert_int_equal(cJSON_GetArraySize(ms), 15);
  const cJSON *occ = cJSON_GetObjectItem(ms, "sm__warps_active.avg.pct_of_peak_sustained_active");
  assert_string_equal(cJSON_GetObjectItem(occ, "label")->valuestring, "achieved occupancy");
  assert_string_equal(cJSON_GetObjectItem(occ, "unit")->valuestring, "%");
  assert_true(fabs(cJSON_GetObjectItem(occ, "value")->valuedouble - 23.8) < 1e-9);
  const cJSON *na = cJSON_GetObjectItem(
    ms, "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(na, "value")));
  assert_null(cJSON_GetObjectItem(ms, SOL_M));
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "launches")), 1);
  cJSON_Delete(j);
}

static void metric_list_names_each_metric_once(void **state) {
  Fix *f = *state;
  char *list = kr_arena_strdup(f->a, kr_profile_metric_list(f->a));
  assert_non_null(strstr(list, "gpu__time_duration.sum"));
  assert_non_null(strstr(list, SOL_C));
  assert_non_null(strstr(list, SOL_M));
  assert_null(strchr(list, ' '));
  const char *seen[64];
  size_t n = 0;
  for (char *m = strtok(list, ","); m; m = strtok(NULL, ",")) {
    for (size_t i = 0; i < n; i++)
      if (strcmp(seen[i], m) == 0) fail_msg("'%s' twice in the metric list", m);
    assert_true(n < 64);
    seen[n++] = m;
  }
  assert_int_equal(n, 28);
}

/* ---- Failures --------------------------------------------------------------------------------------- */

static void failure_line_prefers_the_profiled_runs_own_error(void **state) {
  Fix *f = *state;
  KrProfileFailure k;
  const char *out = "==PROF== Connected to process 1 (krewrite)\n"
                    KR_LAUNCH_ONCE_PREFIX "no GPU: cuInit failed: CUDA_ERROR_NO_DEVICE\n"
                    "==ERROR== The application returned an error code (1).\n"
                    "==WARNING== No kernels were profiled.\n";
  assert_string_equal(kr_profile_failure_line(out, f->a, &k), "no GPU: cuInit failed: CUDA_ERROR_NO_DEVICE");
  assert_int_equal(k, KR_PROFILE_NO_GPU);
  out = KR_LAUNCH_ONCE_PREFIX "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access, in kernel 'k'\r\n";
  assert_string_equal(kr_profile_failure_line(out, f->a, &k),
                      "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access, in kernel 'k'");
  assert_int_equal(k, KR_PROFILE_CANDIDATE);
}

static void failure_line_takes_ncus_first_specific_error(void **state) {
  Fix *f = *state;
  KrProfileFailure k;
  const char *out = "==ERROR== The application returned an error code (1).\n"
                    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n"
                    "==ERROR== something later\n";
  assert_string_equal(kr_profile_failure_line(out, f->a, &k),
                      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission");
  assert_int_equal(k, KR_PROFILE_NCU_FAILED);
  const char *generic = "==ERROR== The application returned an error code (1).";
  assert_string_equal(kr_profile_failure_line(kr_arena_printf(f->a, "%s\n", generic), f->a, &k), generic);
  assert_string_equal(kr_profile_failure_line("x\n==WARNING== No kernels were profiled.\n", f->a, &k),
                      "==WARNING== No kernels were profiled.");
  assert_int_equal(k, KR_PROFILE_NCU_FAILED);
  out = "==PROF== Disconnected from process 1\n\"ID\",\"Kernel Name\"\n";
  assert_null(kr_profile_failure_line(out, f->a, &k));
  assert_int_equal(k, KR_PROFILE_OK);
}

/* ---- Finding ncu ------------------------------------------------------------------------------------ */

static const char *make_ncu(KrArena *a, const char *dir) {
  const char *path = kr_arena_printf(a, "%s/ncu", dir);
  assert_true(kr_dir_make(dir));
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs("#!/bin/sh\nexit 0\n", fp);
  fclose(fp);
  assert_int_equal(chmod(path, 0755), 0);
  return path;
}

static void ncu_is_found_in_path_then_in_the_default_place(void **state) {
  Fix *f = *state;
  char tmp[] = "/tmp/kr-profile-XXXXXX";
  assert_non_null(mkdtemp(tmp));
  const char *in_path = make_ncu(f->a, kr_arena_printf(f->a, "%s/path", tmp));
  const char *fallback = make_ncu(f->a, kr_arena_printf(f->a, "%s/cuda/bin", tmp));
  const char *found;
  const char *path_var = kr_arena_printf(f->a, "/nowhere:%s/path", tmp);
  assert_int_equal(kr_profile_find_ncu(NULL, path_var, fallback, &found, f->a, f->d), KR_OK);
  assert_string_equal(found, in_path);
  assert_int_equal(kr_profile_find_ncu(NULL, "/nowhere", fallback, &found, f->a, f->d), KR_OK);
  assert_string_equal(found, fallback);
  assert_int_equal(kr_profile_find_ncu("ncu", path_var, NULL, &found, f->a, f->d), KR_OK);
  assert_string_equal(found, in_path);
  assert_int_equal(kr_profile_find_ncu(fallback, "", NULL, &found, f->a, f->d), KR_OK);
  assert_string_equal(found, fallback);
  kr_dir_remove(tmp);
}

static void missing_ncu_is_reported_with_where_it_looked(void **state) {
  Fix *f = *state;
  const char *found;
  assert_int_equal(kr_profile_find_ncu(NULL, "/nowhere:/nowhere/either", "/nowhere/cuda/bin/ncu",
                                       &found, f->a, f->d), KR_ERR);
  assert_null(found);
  assert_non_null(strstr(first_error(f), "ncu not found (looked in PATH and /nowhere/cuda/bin)"));
  assert_int_equal(kr_profile_find_ncu("/nowhere/ncu", "/usr/bin", NULL, &found, f->a, f->d), KR_ERR);
  assert_string_equal(f->d->items.data[1].message, "ncu '/nowhere/ncu' is not an executable file");
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, fix_setup, fix_teardown)
    T(csv_skips_prof_lines_and_reads_the_units_row),
    T(csv_reads_thousands_separators_and_normalises_units),
    T(csv_reads_quoted_names_several_launches_and_crlf),
    T(csv_reads_na_as_missing),
    T(csv_without_a_header_is_an_error),
    T(csv_header_without_launches_is_an_error),
    T(csv_row_of_the_wrong_width_is_an_error),
    T(csv_unclosed_quote_in_the_table_is_an_error),
    T(bound_boundaries_follow_the_sixty_percent_rule),
    T(tables_classify_at_the_boundaries),
    T(each_fixture_gets_its_class),
    T(captured_h200_output_is_read_and_classified),
    T(the_longest_launch_is_classified),
    T(a_launch_without_sol_values_is_not_classified),
    T(only_the_memory_metrics_are_kept_when_memory_bound),
    T(only_the_compute_metrics_are_kept_when_compute_bound),
    T(only_the_latency_metrics_are_kept_when_latency_bound),
    T(prompt_text_names_the_class_and_its_metrics),
    T(prompt_text_lists_stalls_largest_first_and_skips_na),
    T(prompt_text_names_the_longest_of_several_launches),
    T(json_parses_and_records_the_class_and_every_launch),
    T(metric_list_names_each_metric_once),
    T(failure_line_prefers_the_profiled_runs_own_error),
    T(failure_line_takes_ncus_first_specific_error),
    T(ncu_is_found_in_path_then_in_the_default_place),
    T(missing_ncu_is_reported_with_where_it_looked),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
