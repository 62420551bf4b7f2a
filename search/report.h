/* search/report.h: `krewrite report`: the trajectory of a search (DIR/run.json, written by
 * search/optimize.c) as one self-contained HTML page: inline CSS and SVG, no scripts, nothing
 * fetched. The page holds a summary; a chart of speedup per round (each timed candidate a point,
 * the best so far a line, 1.0x marked), or, when nothing was timed, verified and failed
 * candidates per round; the best candidate's recipe and the diff of each of its passes with
 * parameters, precision, tolerance and assumptions; the rounds; and every candidate.
 *
 * Everything taken from the file is HTML-escaped: ideas, reasons and recipes may be arbitrary
 * text from a language model. Fields the renderer does not know are ignored, missing or null
 * ones are shown as absent; a per-candidate "resources" object and a per-round "profile" object
 * are shown when present. Stable hooks for tests: the chart is <svg id="speedup-chart">, each
 * diff a <pre class="diff"> whose lines are <span class="add|del|hunk|file|ctx|note">. */
#ifndef KR_REPORT_H
#define KR_REPORT_H

#include "frontend/kr.h"

/* Colours the page uses, named so that a screenshot test can look for their pixels. */
#define KR_REPORT_CHART_COLOR "#7b2ff7"   /* timed candidates, verified bars */
#define KR_REPORT_BEST_COLOR "#f08c00"    /* the best-so-far line */
#define KR_REPORT_FAILED_COLOR "#d1242f"  /* failed bars */
#define KR_REPORT_ADD_BG "#b4f0c0"        /* diff: added lines */
#define KR_REPORT_DEL_BG "#ffc2c8"        /* diff: removed lines */

typedef struct KrReportSummary {
  size_t rounds, candidates, verified, timed;
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

#endif
