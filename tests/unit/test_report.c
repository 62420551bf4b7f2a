/* tests/unit/test_report.c: the HTML page of `krewrite report` (search/report.h): escaping of
 * text from the file, the chart with and without timings, the best kernel's diffs and the steps
 * of its recipe, the floor, PyTorch and stage times, fields that are missing, null or of the
 * wrong type, and input that is not a trajectory. The timed trajectory is
 * tests/fixtures/report/timed_run.json, whose times are invented for these tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "search/report.h"

#define TIMES_UTF8 "\xc3\x97"   /* the page's multiplication sign */

#define FIXTURE KR_SOURCE_DIR "/tests/fixtures/report/timed_run.json"

typedef struct Page {
  KrArena *arena;
  KrDiags *diags;
  KrBuf html;
  KrReportSummary sum;
  KrStatus st;
} Page;

static void render(Page *p, const char *json) {
  memset(p, 0, sizeof *p);
  p->arena = kr_arena_new();
  p->diags = kr_diags_new();
  p->st = kr_report_html("run.json", json, strlen(json), &p->html, &p->sum, p->diags);
}

static void render_file(Page *p, const char *path) {
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  char *text;
  size_t len;
  assert_int_equal(kr_file_read(path, a, &text, &len, d), KR_OK);
  render(p, text);
  kr_diags_free(d);
  kr_arena_free(a);
}

static void done(Page *p) {
  kr_buf_free(&p->html);
  kr_diags_free(p->diags);
  kr_arena_free(p->arena);
}

static size_t occurrences(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle)) n++;
  return n;
}

/* The text between the chart's opening and closing tags. */
static char *chart_of(Page *p) {
  const char *s = strstr(p->html.data, "<svg id=\"speedup-chart\"");
  assert_non_null(s);
  const char *e = strstr(s, "</svg>");
  assert_non_null(e);
  return kr_arena_strndup(p->arena, s, (size_t)(e - s));
}

static const char *first_error(const Page *p) {
  for (size_t i = 0; i < p->diags->items.len; i++)
    if (p->diags->items.data[i].severity == KR_DIAG_ERROR) return p->diags->items.data[i].message;
  return "";
}

/* ---- Escaping ---------------------------------------------------------------------------------- */

static void escape_replaces_markup_and_quotes(void **state) {
  (void)state;
  KrBuf b = {0};
  const char *s = "<a href=\"x\" title='y'>&amp;</a>";
  kr_report_escape(&b, s, strlen(s));
  assert_string_equal(b.data, "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
  kr_buf_free(&b);
}

static void escape_replaces_control_characters_but_keeps_utf8_and_white_space(void **state) {
  (void)state;
  KrBuf b = {0};
  const char s[] = "a\x01" "b\tc\r\nd\x7f" "e \xc3\x97 \xe2\x80\x94";
  kr_report_escape(&b, s, sizeof s - 1);
  assert_string_equal(b.data, "a\xef\xbf\xbd" "b\tc\r\nd\xef\xbf\xbd" "e \xc3\x97 \xe2\x80\x94");
  kr_buf_free(&b);
}

static void page_escapes_every_text_taken_from_the_file(void **state) {
  (void)state;
  Page p;
  render(&p, "{\"tool\": \"krewrite 0.1.0\", \"problem\": \"<i>p</i>\", \"timed\": false,"
             " \"proposer\": \"llm\", \"proposer_error\": \"<img src=x onerror=alert(1)>\","
             " \"rounds\": [{\"round\": 1, \"rejected\": [\"<style>body{}</style>\"],"
             "   \"candidates\": [{\"id\": 1, \"round\": 1, \"status\": \"verified\","
             "     \"idea\": \"<script>alert(1)</script>\", \"reason\": \"a \\\"quoted\\\" & 'b'\","
             "     \"verification\": {\"passed\": 1, \"failed\": 0, \"first_failure\": null}}]}],"
             " \"best\": {\"id\": 1, \"round\": 1, \"recipe\": \"-- </pre><script>x</script>\","
             "   \"speedup\": null, \"note\": \"n\"},"
             " \"best_log\": {\"passes\": [{\"pass\": \"<p>\", \"kernel\": \"k\","
             "   \"diff\": \"@@ -1 +1 @@\\n-<b>old</b>\\n+<b>new</b>\\n\"}]}}");
  assert_int_equal(p.st, KR_OK);
  const char *h = p.html.data;
  assert_null(strstr(h, "<script"));
  assert_null(strstr(h, "<img"));
  assert_null(strstr(h, "<i>"));
  assert_null(strstr(h, "<b>old"));
  assert_null(strstr(h, "<style>body"));
  assert_non_null(strstr(h, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  assert_non_null(strstr(h, "a &quot;quoted&quot; &amp; &#39;b&#39;"));
  assert_non_null(strstr(h, "<span class=\"del\">-&lt;b&gt;old&lt;/b&gt;</span>"));
  assert_non_null(strstr(h, "<span class=\"add\">+&lt;b&gt;new&lt;/b&gt;</span>"));
  assert_non_null(strstr(h, "-- &lt;/pre&gt;&lt;script&gt;x&lt;/script&gt;"));
  assert_int_equal(occurrences(h, "<style>"), 1);   /* the page's own */
  done(&p);
}

/* ---- The chart --------------------------------------------------------------------------------- */

static const char *UNTIMED =
  "{\"tool\": \"krewrite 0.1.0\", \"problem\": \"examples/x/problem.lua\", \"device\": \"cpu\","
  " \"timed\": false, \"stop_reason\": \"round limit\", \"rounds\": ["
  "  {\"round\": 1, \"candidates\": ["
  "    {\"id\": 1, \"status\": \"verified\", \"times\": null, \"speedup\": null,"
  "     \"timing_note\": \"not timed: no GPU\"},"
  "    {\"id\": 2, \"status\": \"failed\", \"error\": \"relative L2 error 1 exceeds 1e-06\"}]},"
  "  {\"round\": 2, \"candidates\": [{\"id\": 3, \"status\": \"recipe error\"},"
  "    {\"id\": 4, \"status\": \"verified\"}, {\"id\": 5, \"status\": \"verified\"}]}],"
  " \"best\": {\"id\": 5, \"round\": 2, \"recipe\": \"r\", \"speedup\": null,"
  "   \"note\": \"not timed: the deepest verified recipe\"}, \"best_log\": null}";

static void untimed_chart_counts_candidates_and_says_not_timed_no_gpu(void **state) {
  (void)state;
  Page p;
  render(&p, UNTIMED);
  assert_int_equal(p.st, KR_OK);
  assert_int_equal(p.sum.rounds, 2);
  assert_int_equal(p.sum.candidates, 5);
  assert_int_equal(p.sum.verified, 3);
  assert_int_equal(p.sum.timed, 0);
  assert_int_equal(p.sum.best_id, 5);
  const char *svg = chart_of(&p);
  assert_non_null(strstr(svg, "not timed: no GPU"));
  assert_non_null(strstr(svg, "<title>round 1: 1 verified</title>"));
  assert_non_null(strstr(svg, "<title>round 1: 1 failed</title>"));
  assert_non_null(strstr(svg, "<title>round 2: 2 verified</title>"));
  assert_non_null(strstr(svg, "<title>round 2: 1 failed</title>"));
  assert_null(strstr(svg, "<title>candidate"));      /* no speedup points */
  assert_non_null(strstr(p.html.data, "Not timed: no GPU"));
  assert_non_null(strstr(p.html.data, "relative L2 error 1 exceeds 1e-06"));
  done(&p);
}

static void timed_chart_draws_each_timed_candidate_the_best_line_and_the_reference(void **state) {
  (void)state;
  Page p;
  render_file(&p, FIXTURE);
  assert_int_equal(p.st, KR_OK);
  assert_int_equal(p.sum.rounds, 3);
  assert_int_equal(p.sum.candidates, 11);
  assert_int_equal(p.sum.verified, 9);
  assert_int_equal(p.sum.timed, 9);
  assert_int_equal(p.sum.best_id, 17);
  assert_true(p.sum.best_speedup > 1.49 && p.sum.best_speedup < 1.5);
  const char *svg = chart_of(&p);
  assert_int_equal(occurrences(svg, "<title>candidate "), 9);
  assert_int_equal(occurrences(svg, "<title>best so far after round "), 3);
  assert_non_null(strstr(svg, "stroke=\"" KR_REPORT_BEST_COLOR "\""));
  assert_non_null(strstr(svg, "fill=\"" KR_REPORT_CHART_COLOR "\""));
  assert_non_null(strstr(svg, "1.0\xc3\x97 = the original"));
  assert_non_null(strstr(svg, "best 1.49\xc3\x97"));
  /* Speedups 0.917 to 1.49: ticks every 0.1 from 0.9 to 1.5. */
  assert_non_null(strstr(svg, ">0.9\xc3\x97</text>"));
  assert_non_null(strstr(svg, ">1.5\xc3\x97</text>"));
  assert_null(strstr(svg, ">1.6\xc3\x97</text>"));
  assert_null(strstr(svg, "not timed"));
  done(&p);
}

static void chart_survives_outlying_and_bogus_speedups(void **state) {
  (void)state;
  Page p;
  render(&p, "{\"tool\": \"krewrite\", \"timed\": true, \"rounds\": [{\"candidates\": ["
             "{\"id\": 1, \"status\": \"verified\", \"speedup\": 1e300},"
             "{\"id\": 2, \"status\": \"verified\", \"speedup\": 1e-300},"
             "{\"id\": 3, \"status\": \"verified\", \"speedup\": -4},"
             "{\"id\": 4, \"status\": \"verified\", \"speedup\": 0},"
             "{\"id\": 5, \"status\": \"verified\", \"speedup\": \"fast\"}]}]}");
  assert_int_equal(p.st, KR_OK);
  assert_int_equal(p.sum.timed, 2);    /* only positive numbers count as timed */
  assert_true(p.html.len < 200000);   /* a bounded number of ticks */
  assert_int_equal(occurrences(chart_of(&p), "<title>candidate "), 2);
  done(&p);
}

/* ---- The best kernel and the tables ---------------------------------------------------------- */

static void best_kernel_shows_each_pass_with_a_coloured_diff(void **state) {
  (void)state;
  Page p;
  render_file(&p, FIXTURE);
  const char *h = p.html.data;
  assert_int_equal(occurrences(h, "<pre class=\"diff\">"), 3);
  assert_non_null(strstr(h, "<h3 id=\"pass-1\">Pass 1: <code>restrict</code> on kernel <code>vector_add</code>"));
  assert_non_null(strstr(h, "<h3 id=\"pass-3\">Pass 3: <code>vectorize</code>"));
  assert_non_null(strstr(h, "<span class=\"hunk\">@@"));
  assert_non_null(strstr(h, "<span class=\"add\">+"));
  assert_non_null(strstr(h, "<span class=\"del\">-"));
  /* The texts named by file and pass (the fixture's own diffs say a/0 and b/1, as logs did). */
  assert_non_null(strstr(h, "<span class=\"file\">--- kernel.cu, original</span>"
                            "<span class=\"file\">+++ kernel.cu, after pass 1 (restrict)</span>"));
  assert_non_null(strstr(h, "<span class=\"file\">--- kernel.cu, after pass 2 (ldg)</span>"
                            "<span class=\"file\">+++ kernel.cu, after pass 3 (vectorize)</span>"));
  assert_int_equal(occurrences(h, "<span class=\"file\">"), 6);
  assert_null(strstr(h, "a/0"));
  assert_non_null(strstr(h, "width: 4"));                    /* parameters */
  assert_non_null(strstr(h, "out is 16-byte aligned"));      /* assumptions */
  assert_non_null(strstr(h, ".diff .add{background:" KR_REPORT_ADD_BG "}"));
  assert_non_null(strstr(h, ".diff .del{background:" KR_REPORT_DEL_BG "}"));
  done(&p);
}

static void resources_and_profiles_are_shown_when_present(void **state) {
  (void)state;
  Page p;
  render_file(&p, FIXTURE);
  const char *h = p.html.data;
  assert_non_null(strstr(h, "<th>resources (registers, spills, shared memory)</th>"));
  assert_non_null(strstr(h, "vector_add: 24 registers, 0/0 B spilled, 0 B shared"));
  assert_non_null(strstr(h, "<span class=\"bad\">8/8 B spilled</span>"));
  assert_non_null(strstr(h, "<td class=\"small\">vector_add: 26 registers, 0/0 B spilled, 0 B shared</td>"));
  assert_non_null(strstr(h, "<th>original's resources</th><td>vector_add: 18 registers"));
  assert_non_null(strstr(h, "<th>profile</th>"));
  assert_non_null(strstr(h, "<b>memory-bandwidth-bound</b> (vector_add, 0.2104 ms)"));
  assert_non_null(strstr(h, "DRAM 86.4 %"));
  assert_non_null(strstr(h, "<tr class=\"best\">"));
  done(&p);
  render(&p, UNTIMED);
  assert_null(strstr(p.html.data, "<th>resources"));
  assert_null(strstr(p.html.data, "<th>profile</th>"));
  done(&p);
}

static void missing_null_and_mistyped_fields_do_not_stop_the_page(void **state) {
  (void)state;
  Page p;
  render(&p, "{\"tool\": \"krewrite 9\", \"unknown\": {\"x\": [1, 2]}, \"rounds\": ["
             " {\"candidates\": [{}, null, 3, {\"id\": \"x\", \"speedup\": \"fast\", \"times\": 5,"
             "   \"verification\": [], \"compile\": {\"kernels\": [7, {\"name\": \"k\"}]}},"
             "  {\"compile\": {\"error\": \"no nvcc\"}}]},"
             " 7, {\"round\": null, \"candidates\": {\"a\": 1}}, {\"profile\": [1, {\"deep\": "
             "   [[[[[[[[[[1]]]]]]]]]]}]}],"
             " \"best\": {\"id\": 1}, \"best_log\": {\"passes\": [{\"diff\": null}, {}, 5],"
             "   \"skipped\": [{\"pass\": \"ldg\", \"reason\": \"<no>\"}]}}");
  assert_int_equal(p.st, KR_OK);
  assert_int_equal(p.sum.rounds, 4);
  assert_int_equal(p.sum.candidates, 3);   /* {}, the mistyped one, the one without nvcc */
  assert_non_null(strstr(p.html.data, "no nvcc"));
  assert_non_null(strstr(p.html.data, "(no textual change)"));
  assert_non_null(strstr(p.html.data, "&lt;no&gt;"));
  assert_non_null(strstr(p.html.data, "</html>"));
  done(&p);
  render(&p, "{\"tool\": \"krewrite\", \"rounds\": []}");
  assert_int_equal(p.st, KR_OK);
  assert_non_null(strstr(chart_of(&p), "no rounds were run"));
  assert_non_null(strstr(p.html.data, "no candidate verified"));
  done(&p);
}

/* ---- A recipe's steps (kr_report_steps_html) ---------------------------------------------------- */

/* An apply log of two passes on dir/kernel.cu, and timings of its three steps in which the
 * second pass made the kernel slower. */
static const char *STEPS_LOG =
  "{\"tool\": \"krewrite\", \"input\": {\"path\": \"dir/kernel.cu\", \"sha256\": \"abc\"},"
  " \"recipe\": {\"path\": \"r.lua\", \"text\": \"k:apply('ldg')\"},"
  " \"passes\": ["
  "  {\"pass\": \"ldg\", \"kernel\": \"k\", \"given\": {\"params\": [\"x\"]}, \"precision\": \"exact\","
  "   \"diff\": \"--- kernel.cu, original\\n+++ kernel.cu, after pass 1 (ldg)\\n@@ -1 +1 @@\\n-a\\n+b\\n\"},"
  "  {\"pass\": \"unroll\", \"kernel\": \"k\", \"given\": {\"factor\": 2}, \"precision\": \"exact\","
  "   \"diff\": \"--- a/1\\n+++ b/2\\n@@ -1 +1 @@\\n-b\\n+c\\n\"}]}";

static const char *STEPS_TIMINGS =
  "{\"tool\": \"krewrite 0.1.0 bench --steps\", \"source\": {\"path\": \"dir/kernel.cu\", \"sha256\": \"abc\"},"
  " \"gpu\": \"H200 <b>\", \"arch\": \"sm_90\", \"timed\": true, \"sizes\": \"n=4\", \"verified_on\": \"cpu\","
  " \"steps\": ["
  "  {\"step\": 0, \"pass\": null, \"kernel\": null, \"given\": null, \"status\": \"original\","
  "   \"times\": {\"median_ms\": 2.0}, \"vs_original\": 1, \"vs_previous\": null, \"regression\": false},"
  "  {\"step\": 1, \"pass\": \"ldg\", \"kernel\": \"k\", \"given\": {\"params\": [\"x\"]}, \"status\": \"verified\","
  "   \"verification\": {\"passed\": 9, \"failed\": 0, \"first_failure\": null},"
  "   \"times\": {\"median_ms\": 1.0}, \"vs_original\": 2, \"vs_previous\": 2, \"previous_step\": 0,"
  "   \"regression\": false},"
  "  {\"step\": 2, \"pass\": \"unroll\", \"kernel\": \"k\", \"given\": {\"factor\": 2}, \"status\": \"verified\","
  "   \"verification\": {\"passed\": 9, \"failed\": 0, \"first_failure\": null},"
  "   \"times\": {\"median_ms\": 1.5}, \"vs_original\": 1.3333, \"vs_previous\": 0.6667, \"previous_step\": 1,"
  "   \"regression\": true}]}";

static void render_steps(Page *p, const char *log, const char *timings) {
  memset(p, 0, sizeof *p);
  p->arena = kr_arena_new();
  p->diags = kr_diags_new();
  KrReportSteps in = {.problem = "prob<1>", .recipe_path = "r.lua", .log_path = "r.lua", .log = log,
                      .log_len = strlen(log), .timings_path = "t.json", .timings = timings,
                      .timings_len = timings ? strlen(timings) : 0};
  p->st = kr_report_steps_html(&in, &p->html, &p->sum, p->diags);
}

static void steps_page_marks_the_regression_and_names_each_diff_by_file_and_pass(void **state) {
  (void)state;
  Page p;
  render_steps(&p, STEPS_LOG, STEPS_TIMINGS);
  assert_int_equal(p.st, KR_OK);
  assert_int_equal(p.sum.steps, 3);
  assert_int_equal(p.sum.verified, 2);
  assert_int_equal(p.sum.timed, 2);
  const char *h = p.html.data;
  const char *from = strstr(h, "<table id=\"steps\">");
  assert_non_null(from);
  const char *table = kr_arena_strndup(p.arena, from, (size_t)(strstr(from, "</table>") - from));
  assert_int_equal(occurrences(table, "<tr"), 4);   /* the header, three steps */
  assert_non_null(strstr(table, "<tr class=\"regressed\"><td class=\"num\">2</td>"));
  assert_non_null(strstr(table, "0.667" TIMES_UTF8 "<br>regression: slower than step 1"));
  assert_int_equal(occurrences(table, "class=\"regressed\""), 1);
  /* The chart: a bar per step, the regression's in the failed colour and labelled. */
  const char *chart = strstr(h, "<svg id=\"steps-chart\"");
  assert_non_null(chart);
  assert_non_null(strstr(chart, "fill=\"" KR_REPORT_FAILED_COLOR "\"><title>step 2 (unroll): 1.5 ms, a regression"));
  assert_non_null(strstr(chart, "fill=\"" KR_REPORT_CHART_COLOR "\"><title>step 1 (ldg): 1 ms</title>"));
  assert_non_null(strstr(chart, ">regression</text>"));
  assert_non_null(strstr(h, "<a href=\"#step-2\" class=\"bad\">step 2 (unroll)</a>"));
  /* Each diff names its texts by file and pass, whatever the log's diff said. */
  assert_non_null(strstr(h, "<span class=\"file\">--- kernel.cu, after pass 1 (ldg)</span>"
                            "<span class=\"file\">+++ kernel.cu, after pass 2 (unroll)</span>"));
  assert_null(strstr(h, "a/1"));
  assert_int_equal(occurrences(h, "<span class=\"file\">"), 4);
  /* Text from the files is escaped. */
  assert_null(strstr(h, "H200 <b>"));
  assert_non_null(strstr(h, "H200 &lt;b&gt;"));
  assert_non_null(strstr(h, "prob&lt;1&gt;"));
  done(&p);
}

static void steps_page_without_timings_says_not_timed(void **state) {
  (void)state;
  Page p;
  render_steps(&p, STEPS_LOG, NULL);
  assert_int_equal(p.st, KR_OK);
  assert_int_equal(p.sum.steps, 3);
  assert_int_equal(p.sum.timed, 0);
  const char *chart = strstr(p.html.data, "<svg id=\"steps-chart\"");
  assert_non_null(chart);
  assert_non_null(strstr(chart, "not timed: no timings given"));
  assert_null(strstr(chart, "<title>step 1 (ldg): "));
  assert_non_null(strstr(p.html.data, "<h3 id=\"step-2\">Step 2: <code>unroll</code>"));
  done(&p);
}

static void steps_refused(const char *timings, const char *why) {
  Page p;
  render_steps(&p, STEPS_LOG, timings);
  assert_int_equal(p.st, KR_ERR);
  assert_int_equal(p.html.len, 0);
  assert_non_null(strstr(first_error(&p), why));
  assert_string_equal(p.diags->items.data[0].path, "t.json");
  done(&p);
}

static void steps_timings_of_another_recipe_or_source_are_refused(void **state) {
  (void)state;
  steps_refused("{\"tool\": \"krewrite\", \"steps\": [", "not JSON: syntax error");
  steps_refused("{\"tool\": \"krewrite\", \"rounds\": []}", "not the output of krewrite bench --steps --json");
  char *t = strdup(STEPS_TIMINGS);
  memcpy(strstr(t, "\"abc\""), "\"abd\"", 5);
  steps_refused(t, "they were taken on another source (sha256 abd; the problem's source is abc)");
  strcpy(t, STEPS_TIMINGS);
  memcpy(strstr(t, "\"factor\": 2"), "\"factor\": 4", 11);
  steps_refused(t, "their step 2 is unroll {\"factor\":4} on k, the recipe's is unroll {\"factor\":2} on k");
  free(t);
  steps_refused("{\"tool\": \"krewrite\", \"source\": {\"sha256\": \"abc\"}, \"steps\": [{}]}",
                "they hold 1 steps, the recipe makes 3 (the original and 2 passes)");
}

/* ---- The best recipe's steps on the search page ----------------------------------------------------- */

/* A trajectory whose best candidate's apply log is `log` and whose best_steps is `steps` (JSON). */
static void render_best(Page *p, const char *log, const char *steps) {
  KrBuf b = {0};
  kr_buf_printf(&b, "{\"tool\": \"krewrite\", \"rounds\": [{\"candidates\": [{\"id\": 1, \"status\": \"verified\","
                    " \"times\": {\"candidate_median_ms\": 1.5, \"floor_ms\": \"x\"}, \"stages\": [1]}]}],"
                    " \"best\": {\"id\": 1}, \"best_log\": %s, \"best_steps\": %s, \"pytorch\": 3}", log, steps);
  render(p, b.data);
  kr_buf_free(&b);
}

static void best_steps_draw_the_steps_table_and_chart_linked_to_the_passes(void **state) {
  (void)state;
  Page p;
  render_best(&p, STEPS_LOG, STEPS_TIMINGS);
  assert_int_equal(p.st, KR_OK);
  const char *h = p.html.data;
  const char *from = strstr(h, "<h3 id=\"best-steps\">Steps of the best recipe</h3>");
  assert_non_null(from);
  assert_true(strstr(from, "<table id=\"steps\">") < strstr(from, "<h3 id=\"pass-1\">"));
  assert_non_null(strstr(from, "<tr class=\"regressed\"><td class=\"num\">2</td><td><a href=\"#pass-2\"><code>unroll"));
  assert_non_null(strstr(from, "<svg id=\"steps-chart\""));
  assert_non_null(strstr(from, "Regressions: <a href=\"#pass-2\" class=\"bad\">step 2 (unroll)</a>."));
  assert_non_null(strstr(from, "<h3 id=\"pass-2\">Pass 2: <code>unroll</code>"));
  /* The mistyped floor, PyTorch time and stages are not shown. */
  assert_null(strstr(h, "best vs the floor"));
  assert_null(strstr(h, "best vs PyTorch"));
  assert_null(strstr(h, "<th>stage times</th>"));
  done(&p);
}

static void best_steps_that_are_absent_failed_or_not_bench_output_are_a_note(void **state) {
  (void)state;
  static const struct { const char *steps, *note; } cases[] = {
    {"null", "<p class=\"muted steps-note\">run.json records no step timings for the best recipe"},
    {"5", "are not of the best recipe, so there is no step table: not the output of krewrite bench --steps --json"},
    {"{\"tool\": \"krewrite\", \"error\": \"the <recipe> failed\", \"steps\": []}",
     "bench --steps failed on the best recipe, so there is no step table: the &lt;recipe&gt; failed"},
    {"{\"tool\": \"krewrite\", \"source\": {\"sha256\": \"abc\"}, \"steps\": [{}, {}]}",
     "so there is no step table: they hold 2 steps, the recipe makes 3 (the original and 2 passes)."},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Page p;
    render_best(&p, STEPS_LOG, cases[i].steps);
    assert_int_equal(p.st, KR_OK);
    assert_non_null(strstr(p.html.data, cases[i].note));
    assert_null(strstr(p.html.data, "<table id=\"steps\">"));
    assert_null(strstr(p.html.data, "<svg id=\"steps-chart\""));
    assert_non_null(strstr(p.html.data, "<h3 id=\"pass-2\">Pass 2: <code>unroll</code>"));
    done(&p);
  }
}

static void floor_pytorch_and_stage_times_are_shown_when_recorded(void **state) {
  (void)state;
  Page p;
  render(&p, "{\"tool\": \"krewrite\", \"rounds\": [{\"candidates\": ["
             " {\"id\": 1, \"status\": \"verified\", \"times\": {\"candidate_median_ms\": 0.5466, \"floor_ms\": 0.2859},"
             "  \"stages\": {\"apply_s\": 0.021, \"build_s\": 1.34, \"verify_s\": 4.12, \"time_s\": 2.0}},"
             " {\"id\": 2, \"status\": \"failed\", \"stages\": {\"apply_s\": 0.001, \"build_s\": 12.6, \"verify_s\": 0,"
             "  \"time_s\": null}}, {\"id\": 3, \"status\": \"recipe error\"}]}],"
             " \"best\": {\"id\": 1}, \"pytorch\": {\"median_ms\": 1.049, \"label\": \"torch <eager>\"}}");
  assert_int_equal(p.st, KR_OK);
  const char *h = p.html.data;
  assert_non_null(strstr(h, "<tr><th>best vs the floor</th><td><b>52.3%</b> of the floor (0.2859 ms); the best's "
                            "median is 0.5466 ms"));
  assert_non_null(strstr(h, "<tr><th>best vs torch &lt;eager&gt;</th><td><b>1.92" TIMES_UTF8 "</b> torch "
                            "&lt;eager&gt; (1.049 ms): faster"));
  assert_non_null(strstr(h, "<th>stage times</th>"));
  assert_non_null(strstr(h, "<td class=\"small stages\">apply 0.02 s, build 1.3 s, verify 4.1 s, time 2.0 s</td>"));
  assert_non_null(strstr(h, "<td class=\"small stages\">apply &lt;0.01 s, build 13 s, verify 0 s</td>"));
  assert_non_null(strstr(h, "<td class=\"small stages\">\xe2\x80\x94</td>"));   /* none recorded */
  done(&p);
  /* Without the best's median: what there is, and no ratio. */
  render(&p, "{\"tool\": \"krewrite\", \"rounds\": [{\"candidates\": [{\"id\": 1, \"status\": \"verified\","
             " \"times\": {\"floor_ms\": 0.25}}]}], \"best\": {\"id\": 1}, \"pytorch\": {\"median_ms\": 1.049}}");
  assert_non_null(strstr(p.html.data, "<th>best vs the floor</th><td>the floor is 0.25 ms; the best was not timed"));
  assert_non_null(strstr(p.html.data, "<th>best vs PyTorch</th><td>PyTorch 1.049 ms; the best was not timed"));
  done(&p);
}

/* ---- Bad input ---------------------------------------------------------------------------------- */

static void refused(const char *json, const char *why) {
  Page p;
  render(&p, json);
  assert_int_equal(p.st, KR_ERR);
  assert_int_equal(p.html.len, 0);   /* nothing half-rendered */
  assert_non_null(strstr(first_error(&p), why));
  assert_string_equal(p.diags->items.data[0].path, "run.json");
  done(&p);
}

static void text_that_is_not_json_is_refused_with_its_position(void **state) {
  (void)state;
  refused("", "empty file, not JSON");
  refused("{\"tool\": \"krewrite\",\n \"rounds\": [}", "not JSON: syntax error at byte 33");
  refused("{\"tool\": \"krewrite\", \"rounds\": []} trailing", "not JSON");
  Page p;
  render(&p, "{\n  oops");
  assert_int_equal(p.diags->items.data[0].line, 2);
  done(&p);
}

static void json_that_is_not_a_trajectory_is_refused(void **state) {
  (void)state;
  refused("[1, 2]", "not a krewrite search trajectory: the top level is not an object");
  refused("{\"rounds\": []}", "no \"tool\": \"krewrite ...\" field");
  refused("{\"tool\": \"other\", \"rounds\": []}", "no \"tool\"");
  refused("{\"tool\": \"krewrite\", \"rounds\": 3}", "no \"rounds\" list");
  refused("{\"tool\": \"krewrite\", \"version\": \"0.1.0\", \"passes\": []}", "apply log");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(escape_replaces_markup_and_quotes),
    cmocka_unit_test(escape_replaces_control_characters_but_keeps_utf8_and_white_space),
    cmocka_unit_test(page_escapes_every_text_taken_from_the_file),
    cmocka_unit_test(untimed_chart_counts_candidates_and_says_not_timed_no_gpu),
    cmocka_unit_test(timed_chart_draws_each_timed_candidate_the_best_line_and_the_reference),
    cmocka_unit_test(chart_survives_outlying_and_bogus_speedups),
    cmocka_unit_test(best_kernel_shows_each_pass_with_a_coloured_diff),
    cmocka_unit_test(resources_and_profiles_are_shown_when_present),
    cmocka_unit_test(missing_null_and_mistyped_fields_do_not_stop_the_page),
    cmocka_unit_test(text_that_is_not_json_is_refused_with_its_position),
    cmocka_unit_test(json_that_is_not_a_trajectory_is_refused),
    cmocka_unit_test(steps_page_marks_the_regression_and_names_each_diff_by_file_and_pass),
    cmocka_unit_test(steps_page_without_timings_says_not_timed),
    cmocka_unit_test(steps_timings_of_another_recipe_or_source_are_refused),
    cmocka_unit_test(best_steps_draw_the_steps_table_and_chart_linked_to_the_passes),
    cmocka_unit_test(best_steps_that_are_absent_failed_or_not_bench_output_are_a_note),
    cmocka_unit_test(floor_pytorch_and_stage_times_are_shown_when_recorded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
