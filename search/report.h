/* search/report.h: `krewrite report`: the trajectory of a search (DIR/run.json, written by
 * search/optimize.c) as one self-contained HTML page: inline CSS and SVG, no scripts, nothing
 * fetched. The page holds a summary (with, when run.json records them, the best candidate's
 * fraction of the floor and its speed against a recorded PyTorch time); a chart of speedup per
 * round (each timed candidate a point, the best so far a line, 1.0x marked), or, when nothing
 * was timed, verified and failed candidates per round; the best candidate's recipe, the steps of
 * that recipe (run.json's best_steps, drawn as the steps page below draws them) and the diff of
 * each of its passes with parameters, precision, tolerance and assumptions; the rounds; and
 * every candidate, with the time each stage took when recorded.
 *
 * Everything taken from the file is HTML-escaped: ideas, reasons and recipes may be arbitrary
 * text from a language model. Fields the renderer does not know are ignored, missing or null
 * ones are shown as absent (best_steps, "pytorch", a candidate's "stages" and its times'
 * "floor_ms" came later than the rest); a per-candidate "resources" object and a per-round
 * "profile" object are shown when present. Stable hooks for tests: the chart is
 * <svg id="speedup-chart">, the best recipe's steps <svg id="steps-chart"> and
 * <table id="steps"> (or a <p class="steps-note"> saying why there are none), each pass's
 * heading <h3 id="pass-N">, each diff a <pre class="diff"> whose lines are
 * <span class="add|del|hunk|file|ctx|note">, the summary <table id="summary">. */
#ifndef KR_REPORT_H
#define KR_REPORT_H

#include "base/kr.h"

/* Colours the page uses, named so that a screenshot test can look for their pixels. */
#define KR_REPORT_CHART_COLOR "#7b2ff7"   /* timed candidates, verified bars */
#define KR_REPORT_BEST_COLOR "#f08c00"    /* the best-so-far line */
#define KR_REPORT_FAILED_COLOR "#d1242f"  /* failed bars */
#define KR_REPORT_ADD_BG "#b4f0c0"        /* diff: added lines */
#define KR_REPORT_DEL_BG "#ffc2c8"        /* diff: removed lines */

typedef struct KrReportSummary {
  size_t rounds, candidates, verified, timed;
  size_t steps;           /* a steps page: the original and each pass (verified, timed: of the passes) */
  int best_id;            /* -1: no best */
  double best_speedup;    /* 0: the best was not timed */
} KrReportSummary;

/* Appends s[0..n) to out with & < > " ' escaped, and control characters other than tab, newline
 * and carriage return replaced by U+FFFD, so the text is safe in element content and in quoted
 * attribute values. */
void kr_report_escape(KrBuf *out, const char *s, size_t n);

/* Renders the trajectory `json` (len bytes; `path` names it in messages) as an HTML page
 * appended to out, and fills *sum when sum is not NULL. KR_ERR, with an error naming `path`,
 * when the text is not JSON or not a krewrite search trajectory; out is then left as it was. */
KrStatus kr_report_html(const char *path, const char *json, size_t len, KrBuf *out,
                        KrReportSummary *sum, KrDiags *diags);

/* ---- A recipe's steps -------------------------------------------------------------------------
 * `krewrite report PROBLEM.lua --recipe R.lua [--timings T.json]`: the page of one recipe's steps
 * (the original, then the text after each pass it applied): a summary; a chart of each step's
 * median time, <svg id="steps-chart">, the original's as a dashed line and regressions (slower
 * than the step before by more than KR_STEPS_REGRESSION) in KR_REPORT_FAILED_COLOR; a table,
 * <table id="steps">, of each step's pass, arguments, kernel, precision, verification, median,
 * speed against the original and the previous step, and notes; the recipe; and each pass's diff,
 * its texts named by the source's file and the pass ("kernel.cu, after pass 2 (ldg)"), each at
 * <h3 id="step-N">. The steps and diffs come from the recipe's apply log; verification and times
 * from the JSON of `krewrite bench --steps --json`, which must be of the same recipe on the same
 * source (its source sha256 and each step's pass, kernel and arguments are checked). */
typedef struct KrReportSteps {
  const char *problem;                 /* the spec's name */
  const char *recipe_path;             /* for messages */
  const char *log_path, *log;          /* the recipe's apply log (kr_recipe_log_json) */
  size_t log_len;
  const char *timings_path, *timings;  /* bench --steps --json, or NULL */
  size_t timings_len;
} KrReportSteps;

/* Renders the page into out; *sum (may be NULL) gets steps, and of the passes how many
 * verified and were timed. KR_ERR, with an error naming the file, when the log or the timings
 * are not what they should be, or the timings are of another recipe or source. */
KrStatus kr_report_steps_html(const KrReportSteps *in, KrBuf *out, KrReportSummary *sum, KrDiags *diags);

#endif
