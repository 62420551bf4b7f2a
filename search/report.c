/* search/report.c: the HTML page of `krewrite report` (search/report.h). The trajectory is read
 * with cJSON and walked as it is, with no model of its own in between, so that fields added to
 * run.json later cost nothing here until they are worth showing. Every string from the file goes
 * through kr_report_escape; every number through a finite check before it is drawn. */
#include "search/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "recipes/recipe.h"

#define DASH "\xe2\x80\x94"    /* — : an absent value */
#define TIMES "\xc3\x97"       /* × */

typedef struct Page {
  KrBuf *b;
  KrArena *arena;            /* for messages */
  const cJSON *root, *rounds;
  const cJSON *best;         /* the best candidate's record in "rounds", or NULL */
  bool timed;                /* the run had a GPU to time candidates on */
  KrReportSummary sum;
  double lo, hi;             /* smallest and largest speedup of a timed candidate */
  bool has_resources, has_profile, has_stages;
} Page;

/* ---- Reading the trajectory ------------------------------------------------------------------ */

static const cJSON *get(const cJSON *o, const char *key) {
  return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *str_of(const cJSON *o, const char *key) {
  const cJSON *v = get(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num_of(const cJSON *o, const char *key, double *out) {
  const cJSON *v = get(o, key);
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return false;
  *out = v->valuedouble;
  return true;
}

static int int_of(const cJSON *o, const char *key, int dflt) {
  double v;
  return num_of(o, key, &v) && fabs(v) < 1e9 ? (int)v : dflt;
}

static bool is_verified(const cJSON *c) {
  const char *s = str_of(c, "status");
  return s && strcmp(s, "verified") == 0;
}

/* A candidate's speedup when it was timed: a finite number above zero. */
static bool speedup_of(const cJSON *c, double *out) {
  return num_of(c, "speedup", out) && *out > 0;
}

static const cJSON *candidates_of(const cJSON *round) {
  const cJSON *c = get(round, "candidates");
  return cJSON_IsArray(c) ? c : NULL;
}

static void count(Page *p) {
  const cJSON *r, *c, *best = get(p->root, "best");
  p->sum.best_id = int_of(best, "id", -1);
  if (!speedup_of(best, &p->sum.best_speedup)) p->sum.best_speedup = 0;
  p->timed = cJSON_IsTrue(get(p->root, "timed"));
  cJSON_ArrayForEach(r, p->rounds) {
    p->sum.rounds++;
    cJSON_ArrayForEach(c, candidates_of(r)) {
      double s;
      if (!cJSON_IsObject(c)) continue;
      p->sum.candidates++;
      if (is_verified(c)) p->sum.verified++;
      if (cJSON_IsObject(get(c, "compile"))) p->has_resources = true;
      if (cJSON_IsObject(get(c, "stages"))) p->has_stages = true;
      if (p->sum.best_id >= 0 && int_of(c, "id", -1) == p->sum.best_id) p->best = c;
      if (!speedup_of(c, &s)) continue;
      p->lo = p->sum.timed ? fmin(p->lo, s) : s;
      p->hi = p->sum.timed ? fmax(p->hi, s) : s;
      p->sum.timed++;
    }
    if (get(r, "profile") && !cJSON_IsNull(get(r, "profile"))) p->has_profile = true;
  }
}

/* ---- Text ------------------------------------------------------------------------------------ */

void kr_report_escape(KrBuf *out, const char *s, size_t n) {
  size_t from = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *rep = NULL;
    switch (c) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = "&quot;"; break;
    case '\'': rep = "&#39;"; break;
    case '\t': case '\n': case '\r': break;
    default:
      if (c < 0x20 || c == 0x7f) rep = "\xef\xbf\xbd";   /* U+FFFD: not allowed in HTML text */
    }
    if (!rep) continue;
    kr_buf_append(out, s + from, i - from);
    kr_buf_puts(out, rep);
    from = i + 1;
  }
  kr_buf_append(out, s + from, n - from);
}

static void esc(KrBuf *b, const char *s) {
  if (s) kr_report_escape(b, s, strlen(s));
}

/* The string, escaped, or a dash when it is absent or empty. */
static void esc_or_dash(KrBuf *b, const char *s) {
  if (s && *s) esc(b, s);
  else kr_buf_puts(b, DASH);
}

/* A JSON value as one short line: numbers as %g, strings as they are, lists comma-separated,
 * objects as "key: value" pairs. For parameters, resources, profiles and whatever else a later
 * run.json holds that this page does not know in detail. */
static void value_text(KrBuf *b, const cJSON *v, int depth) {
  if (!v || cJSON_IsNull(v)) kr_buf_puts(b, DASH);
  else if (cJSON_IsBool(v)) kr_buf_puts(b, cJSON_IsTrue(v) ? "true" : "false");
  else if (cJSON_IsNumber(v)) kr_buf_printf(b, "%g", v->valuedouble);
  else if (cJSON_IsString(v)) esc(b, v->valuestring);
  else if (depth > 6) kr_buf_puts(b, "\xe2\x80\xa6");   /* … */
  else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
    bool obj = cJSON_IsObject(v), first = true;
    if (depth > 0 || cJSON_IsArray(v)) kr_buf_putc(b, obj ? '{' : '[');
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
      kr_buf_puts(b, first ? "" : ", ");
      first = false;
      if (obj) esc(b, e->string), kr_buf_puts(b, ": ");
      value_text(b, e, depth + 1);
    }
    if (first && obj && depth == 0) kr_buf_puts(b, "(none)");
    if (depth > 0 || cJSON_IsArray(v)) kr_buf_putc(b, obj ? '}' : ']');
  }
}

/* One kernel's resources, ptxas's names: "name: 32 registers, 0/0 B spilled, 1024 B shared". */
static void kernel_resources(KrBuf *b, const cJSON *k) {
  double regs, st, ld, smem;
  const char *name = str_of(k, "demangled");
  if (!name || !*name) name = str_of(k, "name");
  if (name) kr_report_escape(b, name, strcspn(name, "(")), kr_buf_puts(b, ": ");  /* no args */
  if (num_of(k, "registers", &regs)) kr_buf_printf(b, "%.0f registers", regs);
  if (num_of(k, "spill_stores", &st) && num_of(k, "spill_loads", &ld))
    kr_buf_printf(b, ", %s%.0f/%.0f B spilled%s", st + ld > 0 ? "<span class=\"bad\">" : "", st,
                  ld, st + ld > 0 ? "</span>" : "");
  if (num_of(k, "smem", &smem)) kr_buf_printf(b, ", %.0f B shared", smem);
}

/* A resource report: ptxas's resources per kernel, or why there is none; a form this page does
 * not know is shown as it is. */
static void resources_html(KrBuf *b, const cJSON *r) {
  const cJSON *ks = get(r, "kernels"), *k;
  const char *err = str_of(r, "error");
  if (!cJSON_IsObject(r)) kr_buf_puts(b, DASH);
  else if (err) kr_buf_puts(b, "<span class=\"muted\">"), esc(b, err), kr_buf_puts(b, "</span>");
  else if (cJSON_IsArray(ks)) {
    bool first = true;
    cJSON_ArrayForEach(k, ks) {
      kr_buf_puts(b, first ? "" : "<br>");
      first = false;
      if (cJSON_IsObject(k)) kernel_resources(b, k);
      else value_text(b, k, 1);
    }
  } else value_text(b, r, 0);
}

/* One note of the notes cell, after a line break unless it is the first. */
static void note(KrBuf *b, bool *any, const char *cls, const char *text) {
  kr_buf_printf(b, "%s<span class=\"%s\">", *any ? "<br>" : "", cls);
  esc(b, text);
  kr_buf_puts(b, "</span>");
  *any = true;
}

/* A number with the fewest decimals that still tells ticks `step` apart. */
static void tick_label(KrBuf *b, double v, double step) {
  int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
  kr_buf_printf(b, "%.*f", dec > 6 ? 6 : dec, v);
}

/* ---- Page head and summary ------------------------------------------------------------------- */

static const char *STYLE =
  "body{font:14px/1.45 'DejaVu Sans',Verdana,sans-serif;margin:24px 32px;color:#1f2328;"
  "background:#fff}\n"
  "h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:30px 0 10px;padding-bottom:4px;"
  "border-bottom:1px solid #d0d7de}h3{font-size:15px;margin:20px 0 6px}\n"
  "table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d0d7de;padding:3px 8px;"
  "text-align:left;vertical-align:top}th{background:#f6f8fa;font-weight:600}\n"
  "table.kv th{width:11em}td.num{text-align:right;white-space:nowrap;"
  "font-variant-numeric:tabular-nums}\n"
  ".ok{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:600}.muted{color:#656d76}"
  ".small{font-size:12px}\n"
  "tr.best td{background:#fff8c5}.badge{display:inline-block;padding:0 6px;border-radius:8px;"
  "background:#1f2328;color:#fff;font-size:11px;margin-left:4px}\n"
  ".warn{border:1px solid #d4a72c;background:#fff8c5;padding:6px 10px;margin:8px 0}\n"
  "pre{font:12px/1.45 'DejaVu Sans Mono',monospace;background:#f6f8fa;border:1px solid #d0d7de;"
  "padding:8px;margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}\n"
  "pre.diff{padding:4px 0}pre.diff span{display:block;padding:0 10px;min-height:1.45em}\n"
  ".diff .add{background:" KR_REPORT_ADD_BG "}.diff .del{background:" KR_REPORT_DEL_BG "}"
  ".diff .hunk{color:#0550ae;background:#ddf4ff}.diff .file{color:#656d76;font-weight:600}"
  ".diff .note{color:#656d76;font-style:italic}\n"
  "svg{display:block;margin:6px 0;font-family:'DejaVu Sans',Verdana,sans-serif}\n"
  "ul{margin:2px 0;padding-left:20px}#candidates,#rounds{font-size:13px}#candidates{width:100%}"
  "td.idea{min-width:10em}td.reason{min-width:16em;max-width:32em}"
  "td.notes{min-width:12em;max-width:24em}.err{color:#cf222e}\n"
  "table#steps tr.regressed td{background:#fff0f0}\n";

static void page_head(Page *p) {
  const char *problem = str_of(p->root, "problem");
  kr_buf_puts(p->b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<title>krewrite report: ");
  esc_or_dash(p->b, problem);
  kr_buf_printf(p->b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>krewrite search: ",
                STYLE);
  esc_or_dash(p->b, problem);
  kr_buf_puts(p->b, "</h1>\n<p class=\"muted\">");
  esc_or_dash(p->b, str_of(p->root, "tool"));
  kr_buf_puts(p->b, ", <code>krewrite optimize</code> trajectory</p>\n");
}

static void kv_row(KrBuf *b, const char *key, const char *escaped_html) {
  kr_buf_printf(b, "<tr><th>%s</th><td>%s</td></tr>\n", key, escaped_html);
}

static void kv_text(KrBuf *b, const char *key, const char *text) {
  kr_buf_printf(b, "<tr><th>%s</th><td>", key);
  esc_or_dash(b, text);
  kr_buf_puts(b, "</td></tr>\n");
}

static void summary_best(Page *p) {
  const cJSON *best = get(p->root, "best");
  KrBuf *b = p->b;
  kr_buf_puts(b, "<tr><th>best</th><td>");
  if (p->sum.best_id < 0) kr_buf_puts(b, "none: no candidate verified");
  else {
    kr_buf_printf(b, "candidate %d (round %d): ", p->sum.best_id, int_of(best, "round", 0));
    if (p->sum.best_speedup > 0)
      kr_buf_printf(b, "<b>%.3g" TIMES "</b> the original's speed", p->sum.best_speedup);
    else esc_or_dash(b, str_of(best, "note"));
  }
  kr_buf_puts(b, "</td></tr>\n");
}

/* The best candidate's median against the floor counted from the spec's bytes and flops, which
 * its "times" record beside the medians: "52.3% of the floor (0.263 ms)". No row for run.json
 * files that record no floor. */
static void summary_floor(Page *p) {
  KrBuf *b = p->b;
  const cJSON *t = get(p->best, "times");
  double floor_ms, ms;
  if (!num_of(t, "floor_ms", &floor_ms) || !(floor_ms > 0)) return;
  kr_buf_puts(b, "<tr><th>best vs the floor</th><td>");
  if (num_of(t, "candidate_median_ms", &ms) && ms > 0)
    kr_buf_printf(b, "<b>%.1f%%</b> of the floor (%.4g ms); the best's median is %.4g ms", 100 * floor_ms / ms,
                  floor_ms, ms);
  else kr_buf_printf(b, "the floor is %.4g ms; the best was not timed", floor_ms);
  kr_buf_puts(b, " <span class=\"muted small\">(the floor: the spec's bytes over the GPU's copy bandwidth or "
                 "its flops over its FLOP rate, whichever takes longer)</span></td></tr>\n");
}

/* A time recorded for the same problem at the benchmark size (run.json's "pytorch") against the
 * best's median: "1.92× PyTorch eager (1.049 ms)", above 1 faster. */
static void summary_pytorch(Page *p) {
  KrBuf *b = p->b;
  const cJSON *pt = get(p->root, "pytorch");
  const char *label = str_of(pt, "label");
  double ref, ms;
  if (!cJSON_IsObject(pt)) return;
  if (!label || !*label) label = "PyTorch";
  kr_buf_puts(b, "<tr><th>best vs ");
  esc(b, label);
  kr_buf_puts(b, "</th><td>");
  bool has_ref = num_of(pt, "median_ms", &ref) && ref > 0;
  if (has_ref && num_of(get(p->best, "times"), "candidate_median_ms", &ms) && ms > 0) {
    kr_buf_printf(b, "<b>%.3g" TIMES "</b> ", ref / ms);
    esc(b, label);
    kr_buf_printf(b, " (%.4g ms): %s <span class=\"muted small\">(its median over the best's, %.4g ms)</span>", ref,
                  ref > ms ? "faster" : ref < ms ? "slower" : "as fast", ms);
  } else if (has_ref) {
    esc(b, label);
    kr_buf_printf(b, " %.4g ms; the best was not timed", ref);
  } else esc(b, label), kr_buf_puts(b, ": no time recorded");
  kr_buf_puts(b, "</td></tr>\n");
}

static void summary(Page *p) {
  KrBuf *b = p->b;
  const cJSON *r = p->root;
  double v;
  kr_buf_puts(b, "<table class=\"kv\" id=\"summary\">\n");
  kv_text(b, "problem", str_of(r, "problem"));
  kr_buf_puts(b, "<tr><th>proposer</th><td>");
  esc_or_dash(b, str_of(r, "proposer"));
  if (num_of(r, "seed", &v)) kr_buf_printf(b, ", seed %.0f", v);
  kr_buf_puts(b, "</td></tr>\n");
  kv_text(b, "device", str_of(r, "device"));
  kv_row(b, "timed", p->timed ? "yes: candidates timed on the GPU"
                              : "no: not timed, no GPU (verified on the CPU emulator)");
  kv_text(b, "stop reason", str_of(r, "stop_reason"));
  kr_buf_printf(b, "<tr><th>counts</th><td>%zu rounds", p->sum.rounds);
  if (num_of(r, "rounds_limit", &v)) kr_buf_printf(b, " (limit %.0f)", v);
  kr_buf_printf(b, ", %zu candidates, %zu verified, %zu timed", p->sum.candidates,
                p->sum.verified, p->sum.timed);
  if (num_of(r, "branch", &v)) kr_buf_printf(b, "; branch %.0f", v);
  if (num_of(r, "keep", &v)) kr_buf_printf(b, ", keep %.0f", v);
  kr_buf_puts(b, "</td></tr>\n");
  if (num_of(r, "intensity_flop_per_byte", &v))
    kr_buf_printf(b, "<tr><th>intensity</th><td>%.3g FLOP/byte</td></tr>\n", v);
  const cJSON *orig = get(get(r, "original"), "compile");
  if (cJSON_IsObject(orig)) {
    kr_buf_puts(b, "<tr><th>original's resources</th><td>");
    resources_html(b, orig);
    kr_buf_puts(b, "</td></tr>\n");
  }
  summary_best(p);
  summary_floor(p);
  summary_pytorch(p);
  kr_buf_puts(b, "</table>\n");
  const char *perr = str_of(r, "proposer_error");
  if (perr && *perr) {
    kr_buf_puts(b, "<p class=\"warn\">proposer error: ");
    esc(b, perr);
    kr_buf_puts(b, "</p>\n");
  }
}

/* ---- The chart ------------------------------------------------------------------------------- */

/* Plot area inside the SVG's CHART_W x CHART_H. */
enum { CHART_W = 900, CHART_H = 340, PLOT_L = 70, PLOT_R = 876, PLOT_T = 40, PLOT_B = 290 };

/* 1, 2 or 5 times a power of ten, near x/5: the step of about five ticks over a range x. */
static double nice_step(double x) {
  if (!(x > 0) || !isfinite(x)) return 1;
  double e = pow(10, floor(log10(x / 5))), f = x / 5 / e;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * e;
}

static double round_x(size_t i, size_t n) {
  return PLOT_L + (PLOT_R - PLOT_L) * (i + 0.5) / (double)n;
}

static double scale_y(double v, double lo, double hi) {
  v = fmin(fmax(v, lo), hi);   /* an outlier past a clamped axis sits on its edge */
  return PLOT_B - (v - lo) / (hi - lo) * (PLOT_B - PLOT_T);
}

static int round_label(const cJSON *round, size_t i) {
  return int_of(round, "round", (int)i + 1);
}

/* Axes, horizontal grid lines with tick labels from lo to hi, round labels and axis titles. */
static void chart_axes(Page *p, double lo, double hi, double step, bool speedup,
                       const char *ytitle) {
  KrBuf *b = p->b;
  int nticks = (int)lround((hi - lo) / step);
  for (int k = 0; k <= nticks; k++) {
    double v = lo + k * step, y = scale_y(v, lo, hi);
    kr_buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eaeef2\"/>"
                     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\" "
                     "fill=\"#57606a\">", PLOT_L, y, PLOT_R, y, PLOT_L - 8, y + 4);
    tick_label(b, v, step);
    kr_buf_puts(b, speedup ? TIMES "</text>\n" : "</text>\n");
  }
  size_t n = p->sum.rounds, every = n > 20 ? (n + 19) / 20 : 1, i = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, p->rounds) {
    if (i % every == 0)
      kr_buf_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#57606a\"/>"
                       "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" "
                       "fill=\"#57606a\">%d</text>\n", round_x(i, n), PLOT_B, round_x(i, n),
                    PLOT_B + 5, round_x(i, n), PLOT_B + 19, round_label(r, i));
    i++;
  }
  kr_buf_printf(b, "<polyline points=\"%d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"#57606a\"/>\n"
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\" "
                   "fill=\"#1f2328\">round</text>\n"
                   "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\" "
                   "font-size=\"13\" fill=\"#1f2328\">%s</text>\n",
                PLOT_L, PLOT_T, PLOT_L, PLOT_B, PLOT_R, PLOT_B, (PLOT_L + PLOT_R) / 2,
                PLOT_B + 40, (PLOT_T + PLOT_B) / 2, ytitle);
}

/* One legend entry at x along the top: a swatch (its SVG) and a label. */
static int legend(KrBuf *b, int x, const char *swatch, const char *label) {
  kr_buf_printf(b, "<g transform=\"translate(%d 14)\">%s<text x=\"22\" y=\"5\" font-size=\"12\" "
                   "fill=\"#1f2328\">%s</text></g>\n", x, swatch, label);
  return x + 32 + 7 * (int)strlen(label);
}

/* The point of one timed candidate, with its idea and speedup as a tooltip. */
static void chart_point(KrBuf *b, const cJSON *c, double x, double y, double s) {
  bool ok = is_verified(c);
  kr_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5.5\" fill=\"%s\" stroke=\"%s\" "
                   "stroke-width=\"1.5\"><title>candidate %d: ", x, y,
                ok ? KR_REPORT_CHART_COLOR : "none", ok ? "#ffffff" : "#57606a",
                int_of(c, "id", 0));
  esc_or_dash(b, str_of(c, "idea"));
  kr_buf_printf(b, ": %.3g" TIMES "%s</title></circle>\n", s, ok ? "" : " (not verified)");
}

/* Each round's timed candidates as points spread across the round's slot; returns through
 * best[] the best verified speedup so far after each round (0: none yet). */
static void chart_points(Page *p, double lo, double hi, double *best) {
  size_t n = p->sum.rounds, i = 0;
  double so_far = 0, slot = (PLOT_R - PLOT_L) / (double)n;
  const cJSON *r, *c;
  cJSON_ArrayForEach(r, p->rounds) {
    size_t m = 0, k = 0;
    double s;
    cJSON_ArrayForEach(c, candidates_of(r)) m += speedup_of(c, &s);
    cJSON_ArrayForEach(c, candidates_of(r)) {
      if (!speedup_of(c, &s)) continue;
      double dx = m > 1 ? ((double)k / (double)(m - 1) - 0.5) * fmin(slot * 0.6, 16.0 * m) : 0;
      chart_point(p->b, c, round_x(i, n) + dx, scale_y(s, lo, hi), s);
      if (is_verified(c)) so_far = fmax(so_far, s);
      k++;
    }
    best[i++] = so_far;
  }
}

static void chart_best_line(Page *p, const double *best, double lo, double hi) {
  KrBuf *b = p->b;
  size_t n = p->sum.rounds, last = n;
  kr_buf_puts(b, "<polyline fill=\"none\" stroke=\"" KR_REPORT_BEST_COLOR "\" stroke-width=\"2.5\" "
                 "stroke-linejoin=\"round\" points=\"");
  for (size_t i = 0; i < n; i++)
    if (best[i] > 0) kr_buf_printf(b, "%.1f,%.1f ", round_x(i, n), scale_y(best[i], lo, hi)),
                     last = i;
  kr_buf_puts(b, "\"/>\n");
  for (size_t i = 0; i < n; i++)
    if (best[i] > 0)
      kr_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\""
                       KR_REPORT_BEST_COLOR "\"><title>best so far after round %zu: %.3g" TIMES
                       "</title></rect>\n", round_x(i, n) - 3.5, scale_y(best[i], lo, hi) - 3.5,
                    i + 1, best[i]);
  if (last < n)
    kr_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\" "
                     "font-weight=\"bold\" fill=\"#1f2328\">best %.3g" TIMES "</text>\n",
                  round_x(last, n) - 8, scale_y(best[last], lo, hi) - 10, best[last]);
}

static void chart_timed(Page *p) {
  KrBuf *b = p->b;
  double lo = fmin(1, p->lo), hi = fmin(fmax(1, p->hi), 1e6);
  double step = nice_step(fmax(hi - lo, 0.5));
  lo = fmax(0, floor(lo / step) * step);
  hi = ceil(hi / step) * step;
  if (hi - lo < step) hi = lo + step;
  chart_axes(p, lo, hi, step, true, "speedup over the original (" TIMES ")");
  double y1 = scale_y(1, lo, hi);
  kr_buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#1f2328\" "
                   "stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                   "font-size=\"11\" fill=\"#1f2328\">1.0" TIMES " = the original</text>\n",
                PLOT_L, y1, PLOT_R, y1, PLOT_R - 4, y1 - 5);
  double *best = calloc(p->sum.rounds ? p->sum.rounds : 1, sizeof *best);
  if (!best) abort();
  chart_points(p, lo, hi, best);
  chart_best_line(p, best, lo, hi);
  free(best);
  int x = PLOT_L;
  x = legend(b, x, "<circle cx=\"8\" cy=\"0\" r=\"5.5\" fill=\"" KR_REPORT_CHART_COLOR "\"/>",
             "timed candidate");
  x = legend(b, x, "<line x1=\"0\" y1=\"0\" x2=\"16\" y2=\"0\" stroke=\"" KR_REPORT_BEST_COLOR
                   "\" stroke-width=\"2.5\"/>", "best so far");
  legend(b, x, "<line x1=\"0\" y1=\"0\" x2=\"16\" y2=\"0\" stroke=\"#1f2328\" "
               "stroke-dasharray=\"6 4\"/>", "original (1.0" TIMES ")");
}

static void chart_bar(KrBuf *b, double x, double w, size_t v, double hi, const char *fill,
                      const char *what, int round) {
  if (!v) return;
  double y = scale_y((double)v, 0, hi);
  kr_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                   "<title>round %d: %zu %s</title></rect><text x=\"%.1f\" y=\"%.1f\" "
                   "text-anchor=\"middle\" font-size=\"11\" fill=\"#1f2328\">%zu</text>\n",
                x, y, w, PLOT_B - y, fill, round, v, what, x + w / 2, y - 4, v);
}

/* Without timings: verified and failed candidates per round, side by side. */
static void chart_untimed(Page *p) {
  KrBuf *b = p->b;
  size_t most = 1, n = p->sum.rounds, i = 0;
  const cJSON *r, *c;
  cJSON_ArrayForEach(r, p->rounds) {
    size_t k = (size_t)cJSON_GetArraySize(candidates_of(r));
    most = k > most ? k : most;
  }
  double step = fmax(1, round(nice_step((double)most))), hi = ceil((double)most / step) * step;
  chart_axes(p, 0, hi, step, false, "candidates");
  double w = fmin((PLOT_R - PLOT_L) / (double)n * 0.3, 40);
  cJSON_ArrayForEach(r, p->rounds) {
    size_t ok = 0, bad = 0;
    cJSON_ArrayForEach(c, candidates_of(r)) {
      if (!cJSON_IsObject(c)) continue;
      if (is_verified(c)) ok++;
      else bad++;
    }
    double x = round_x(i, n);
    chart_bar(b, x - w - 1, w, ok, hi, KR_REPORT_CHART_COLOR, "verified", round_label(r, i));
    chart_bar(b, x + 1, w, bad, hi, KR_REPORT_FAILED_COLOR, "failed", round_label(r, i));
    i++;
  }
  int x = legend(b, PLOT_L, "<rect x=\"0\" y=\"-6\" width=\"14\" height=\"12\" fill=\""
                            KR_REPORT_CHART_COLOR "\"/>", "verified");
  legend(b, x, "<rect x=\"0\" y=\"-6\" width=\"14\" height=\"12\" fill=\""
               KR_REPORT_FAILED_COLOR "\"/>", "failed");
  kr_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"15\" "
                   "font-weight=\"bold\" fill=\"#cf222e\">%s</text>\n", PLOT_R, 19,
                p->timed ? "not timed: no candidate could be timed" : "not timed: no GPU");
}

static void chart(Page *p) {
  KrBuf *b = p->b;
  bool timed = p->sum.timed > 0;
  kr_buf_printf(b, "<h2>%s</h2>\n", timed ? "Speedup per round" : "Candidates per round");
  if (!timed)
    kr_buf_printf(b, "<p>%s: the chart counts the candidates that passed and failed "
                     "verification in each round.</p>\n",
                  p->timed ? "Not timed: no candidate could be timed (see the notes in the "
                             "candidates table)" : "Not timed: no GPU (candidates were verified "
                                                   "on the CPU emulator, which checks results, "
                                                   "not speed)");
  kr_buf_printf(b, "<svg id=\"speedup-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                   "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
                CHART_W, CHART_H, CHART_W, CHART_H,
                timed ? "speedup of each timed candidate per round, and the best so far"
                      : "verified and failed candidates per round");
  kr_buf_printf(b, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", CHART_W, CHART_H);
  if (!p->sum.rounds)
    kr_buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"15\" "
                     "fill=\"#57606a\">no rounds were run</text>\n", CHART_W / 2, CHART_H / 2);
  else if (timed) chart_timed(p);
  else chart_untimed(p);
  kr_buf_puts(b, "</svg>\n");
}

/* ---- Passes and their diffs ------------------------------------------------------------------- */

/* A pass's diff. With `before` and `after` (kr_recipe_text_name: the file and the pass), its two
 * file lines name the texts so, whatever the diff's own say: logs written before the audit log
 * named its texts that way call them "a/0" and "b/1". */
static void diff_block(KrBuf *b, const char *diff, const char *before, const char *after) {
  kr_buf_puts(b, "<pre class=\"diff\">");
  if (!diff || !*diff) kr_buf_puts(b, "<span class=\"note\">(no textual change)</span>");
  else if (before && after) {
    kr_buf_puts(b, "<span class=\"file\">--- "), esc(b, before);
    kr_buf_puts(b, "</span><span class=\"file\">+++ "), esc(b, after), kr_buf_puts(b, "</span>");
  }
  bool in_hunk = false;
  for (const char *p = diff; p && *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    const char *cls = "ctx";
    if (n >= 2 && p[0] == '@' && p[1] == '@') cls = "hunk", in_hunk = true;
    else if (!in_hunk && (!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4))) {
      if (before && after) {   /* named above */
        p = e ? e + 1 : NULL;
        continue;
      }
      cls = "file";
    }
    else if (p[0] == '+') cls = "add";
    else if (p[0] == '-') cls = "del";
    else if (p[0] == '\\') cls = "note";
    kr_buf_printf(b, "<span class=\"%s\">", cls);
    kr_report_escape(b, p, n);
    kr_buf_puts(b, "</span>");
    p = e ? e + 1 : NULL;
  }
  kr_buf_puts(b, "</pre>\n");
}

static void pass_meta(KrBuf *b, const cJSON *ps) {
  kr_buf_puts(b, "<table class=\"kv\">\n<tr><th>parameters</th><td><code>");
  value_text(b, get(ps, "params"), 0);
  kr_buf_puts(b, "</code></td></tr>\n");
  const cJSON *given = get(ps, "given");
  if (cJSON_IsObject(given) && given->child) {
    kr_buf_puts(b, "<tr><th>given by the recipe</th><td><code>");
    value_text(b, given, 0);
    kr_buf_puts(b, "</code></td></tr>\n");
  }
  kv_text(b, "precision", str_of(ps, "precision"));
  kr_buf_puts(b, "<tr><th>tolerance</th><td>");
  value_text(b, get(ps, "tolerance"), 0);
  kr_buf_puts(b, "</td></tr>\n<tr><th>assumptions</th><td>");
  const cJSON *as = get(ps, "assumptions"), *a;
  if (cJSON_IsArray(as) && as->child) {
    kr_buf_puts(b, "<ul>");
    cJSON_ArrayForEach(a, as) {
      kr_buf_puts(b, "<li>");
      value_text(b, a, 1);
      kr_buf_puts(b, "</li>");
    }
    kr_buf_puts(b, "</ul>");
  } else kr_buf_puts(b, "none");
  kr_buf_puts(b, "</td></tr>\n</table>\n");
}

/* Each pass of an apply log ("Pass 2" at #pass-2, or "Step 2" at #step-2 on a steps page; the
 * steps table links to each): its parameters, precision, assumptions and its diff, whose texts
 * are named by the input's file and the pass. */
static void log_passes(KrBuf *b, const cJSON *log, const char *heading, const char *id) {
  const cJSON *passes = get(log, "passes"), *ps;
  const char *path = str_of(get(log, "input"), "path"), *prev = NULL;
  int i = 0;
  if (!cJSON_IsArray(passes)) passes = NULL;
  cJSON_ArrayForEach(ps, passes) {
    if (!cJSON_IsObject(ps)) continue;
    const char *name = str_of(ps, "pass");
    kr_buf_printf(b, "<h3 id=\"%s-%d\">%s %d: <code>", id, i + 1, heading, i + 1);
    esc_or_dash(b, name);
    kr_buf_puts(b, "</code> on kernel <code>");
    esc_or_dash(b, str_of(ps, "kernel"));
    kr_buf_puts(b, "</code></h3>\n");
    pass_meta(b, ps);
    KrBuf before = {0}, after = {0};
    kr_recipe_text_name(path, (size_t)i, prev, &before);
    kr_recipe_text_name(path, (size_t)i + 1, name, &after);
    diff_block(b, str_of(ps, "diff"), before.data, after.data);
    kr_buf_free(&before);
    kr_buf_free(&after);
    prev = name;
    i++;
  }
  if (!i) kr_buf_puts(b, "<p class=\"muted\">The apply log records no passes.</p>\n");
  const cJSON *skipped = get(log, "skipped");
  if (cJSON_IsArray(skipped) && skipped->child) {
    kr_buf_puts(b, "<h3>Skipped</h3>\n<ul>");
    cJSON_ArrayForEach(ps, skipped) {
      kr_buf_puts(b, "<li>");
      value_text(b, ps, 0);
      kr_buf_puts(b, "</li>");
    }
    kr_buf_puts(b, "</ul>\n");
  }
}

/* ---- A recipe's steps: the chart and table of the steps page and of the best kernel --------- */

/* The steps of one recipe: the original, then the text after each pass of its apply log, with
 * each step's verification and times from the output of `krewrite bench --steps --json` when
 * there is one. The steps page and the search page's best kernel both build it with steps_build
 * and draw it with steps_chart and steps_table. */
typedef struct Steps {
  KrBuf *b;
  const cJSON *log, *passes;  /* the recipe's apply log and its passes */
  const cJSON *timings;       /* bench --steps --json, or NULL */
  const cJSON *rows;          /* its steps, one per step of the recipe (checked) */
  const char *anchor;         /* each pass's diff is #ANCHOR-N on the page ("step", "pass") */
  size_t n;                   /* steps, the original included */
  double hi;                  /* the largest median */
  KrReportSummary sum;
} Steps;

static const cJSON *step_timing(const Steps *st, size_t i) {
  return st->rows ? cJSON_GetArrayItem(st->rows, (int)i) : NULL;
}

static const cJSON *step_pass(const Steps *st, size_t i) {
  return i ? cJSON_GetArrayItem(st->passes, (int)i - 1) : NULL;
}

static bool step_median(const Steps *st, size_t i, double *ms) {
  return num_of(get(step_timing(st, i), "times"), "median_ms", ms) && *ms > 0;
}

static bool step_regressed(const Steps *st, size_t i) {
  return cJSON_IsTrue(get(step_timing(st, i), "regression"));
}

/* Why the timings do not belong to this recipe on this source, or NULL. */
static const char *steps_mismatch(const Steps *st, KrArena *a) {
  const char *mine = str_of(get(st->log, "input"), "sha256"), *theirs = str_of(get(st->timings, "source"), "sha256");
  if (!mine || !theirs || strcmp(mine, theirs) != 0)
    return kr_arena_printf(a, "they were taken on another source (sha256 %s; the problem's source is %s)",
                           theirs ? theirs : "not recorded", mine ? mine : "?");
  size_t n = (size_t)cJSON_GetArraySize(st->rows);
  if (n != st->n)
    return kr_arena_printf(a, "they hold %zu steps, the recipe makes %zu (the original and %zu passes)", n, st->n,
                           st->n - 1);
  for (size_t i = 1; i < n; i++) {
    const cJSON *t = step_timing(st, i), *ps = step_pass(st, i);
    const char *tp = str_of(t, "pass"), *lp = str_of(ps, "pass"), *tk = str_of(t, "kernel"), *lk = str_of(ps, "kernel");
    bool same = tp && lp && tk && lk && strcmp(tp, lp) == 0 && strcmp(tk, lk) == 0 &&
                cJSON_Compare(get(t, "given"), get(ps, "given"), true);
    if (!same) {
      char *want = get(ps, "given") ? cJSON_PrintUnformatted(get(ps, "given")) : NULL;
      char *got = get(t, "given") ? cJSON_PrintUnformatted(get(t, "given")) : NULL;
      const char *why = kr_arena_printf(a, "their step %zu is %s %s on %s, the recipe's is %s %s on %s", i,
                                        tp ? tp : "?", got ? got : "?", tk ? tk : "?", lp ? lp : "?",
                                        want ? want : "?", lk ? lk : "?");
      free(want), free(got);
      return why;
    }
  }
  return NULL;
}

static void steps_count(Steps *st) {
  st->sum.steps = st->n;
  for (size_t i = 1; i < st->n; i++) {
    const char *status = str_of(step_timing(st, i), "status");
    double ms;
    st->sum.verified += status && strcmp(status, "verified") == 0;
    st->sum.timed += step_median(st, i, &ms);
  }
  for (size_t i = 0; i < st->n; i++) {
    double ms;
    if (step_median(st, i, &ms)) st->hi = fmax(st->hi, ms);
  }
}

/* Builds the steps of the recipe whose apply log is `log` (with a "passes" list), timed by
 * `timings` (the parsed output of bench --steps --json, or NULL), drawn into b with each pass's
 * diff at #ANCHOR-N. Returns NULL, or why the timings are not of this recipe on this source
 * (allocated from a); the steps are then left without timings. */
static const char *steps_build(Steps *st, KrBuf *b, const cJSON *log, const cJSON *timings, const char *anchor,
                               KrArena *a) {
  *st = (Steps){.b = b, .log = log, .passes = get(log, "passes"), .anchor = anchor};
  st->n = (size_t)cJSON_GetArraySize(st->passes) + 1;
  const char *tool = str_of(timings, "tool"), *why = NULL;
  if (timings && (!tool || strncmp(tool, "krewrite", 8) != 0 || !cJSON_IsArray(get(timings, "steps"))))
    why = "not the output of krewrite bench --steps --json (no \"tool\": \"krewrite ...\" and \"steps\" list)";
  else if (timings) {
    st->timings = timings;
    st->rows = get(timings, "steps");
    why = steps_mismatch(st, a);
  }
  if (why) st->timings = st->rows = NULL;
  steps_count(st);
  return why;
}

/* Why the page has no times, or NULL when it has some. */
static const char *steps_untimed(const Steps *st) {
  double ms;
  if (!st->timings) return "not timed: no timings given (krewrite bench PROBLEM.lua --recipe R.lua --steps --json "
                            "writes them; pass that file to --timings)";
  if (step_median(st, 0, &ms)) return NULL;
  const char *note = str_of(st->timings, "timing_note");
  return note && *note ? note : "not timed";
}

/* Where the times come from: "timed on H200 (sm_90), sizes n=16777216; steps verified on the GPU"
 * (without a GPU, why not: "not timed: no GPU, sizes ..."). */
static void steps_timed_on(const Steps *st) {
  KrBuf *b = st->b;
  const cJSON *t = st->timings;
  const char *gpu = str_of(t, "gpu"), *on = str_of(t, "verified_on");
  if (gpu) kr_buf_puts(b, "timed on "), esc(b, gpu), kr_buf_puts(b, " ("), esc_or_dash(b, str_of(t, "arch")),
           kr_buf_puts(b, ")");
  else esc_or_dash(b, str_of(t, "timing_note"));
  kr_buf_puts(b, ", sizes ");
  esc_or_dash(b, str_of(t, "sizes"));
  kr_buf_printf(b, "; steps verified on %s", on && strcmp(on, "cuda") == 0 ? "the GPU" : "the CPU emulator");
}

/* The regressions, each linked to its pass's diff: "step 2 (unroll)"; "none", or a dash when
 * nothing was timed. */
static void steps_regressions(const Steps *st) {
  KrBuf *b = st->b;
  bool any = false;
  for (size_t i = 1; i < st->n; i++)
    if (step_regressed(st, i)) {
      kr_buf_printf(b, "%s<a href=\"#%s-%zu\" class=\"bad\">step %zu (", any ? ", " : "", st->anchor, i, i);
      esc_or_dash(b, str_of(step_pass(st, i), "pass"));
      kr_buf_puts(b, ")</a>");
      any = true;
    }
  if (!any) kr_buf_puts(b, st->sum.timed ? "none" : DASH);
}

static double step_x(size_t i, size_t n) {
  return PLOT_L + (PLOT_R - PLOT_L) * (i + 0.5) / (double)n;
}

/* Axes: milliseconds from 0 to hi, a label per step (its pass's name where there is room). */
static void steps_axes(Steps *st, double hi, double step) {
  KrBuf *b = st->b;
  int nticks = (int)lround(hi / step);
  for (int k = 0; k <= nticks; k++) {
    double v = k * step, y = scale_y(v, 0, hi);
    kr_buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eaeef2\"/>"
                     "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\" fill=\"#57606a\">",
                  PLOT_L, y, PLOT_R, y, PLOT_L - 8, y + 4);
    tick_label(b, v, step);
    kr_buf_puts(b, "</text>\n");
  }
  bool room = (PLOT_R - PLOT_L) / (double)st->n >= 90;
  for (size_t i = 0; i < st->n; i++) {
    double x = step_x(i, st->n);
    kr_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" fill=\"#57606a\">%zu</text>\n",
                  x, PLOT_B + 16, i);
    if (!room) continue;
    kr_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"#57606a\">", x,
                  PLOT_B + 30);
    esc(b, i ? str_of(step_pass(st, i), "pass") : "original");
    kr_buf_puts(b, "</text>\n");
  }
  kr_buf_printf(b, "<polyline points=\"%d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"#57606a\"/>\n"
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"13\" fill=\"#1f2328\">step</text>\n"
                   "<text transform=\"translate(18 %d) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\" "
                   "fill=\"#1f2328\">median time (ms)</text>\n",
                PLOT_L, PLOT_T, PLOT_L, PLOT_B, PLOT_R, PLOT_B, (PLOT_L + PLOT_R) / 2, PLOT_B + 46,
                (PLOT_T + PLOT_B) / 2);
}

/* Step i's bar, or why it has none. */
static void steps_bar(Steps *st, size_t i, double hi, double w) {
  KrBuf *b = st->b;
  double ms, x = step_x(i, st->n);
  const char *status = str_of(step_timing(st, i), "status");
  if (!step_median(st, i, &ms)) {
    bool failed = status && strcmp(status, "verified") != 0 && strcmp(status, "original") != 0;
    kr_buf_printf(b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"%s\">%s</text>\n", x,
                  PLOT_B - 6, failed ? KR_REPORT_FAILED_COLOR : "#57606a", failed ? "failed" : "not timed");
    return;
  }
  bool bad = step_regressed(st, i);
  double y = scale_y(ms, 0, hi);
  kr_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>step %zu (",
                x - w / 2, y, w, PLOT_B - y, i ? (bad ? KR_REPORT_FAILED_COLOR : KR_REPORT_CHART_COLOR) : "#8c959f", i);
  esc(b, i ? str_of(step_pass(st, i), "pass") : "original");
  kr_buf_printf(b, "): %.4g ms%s</title></rect>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" "
                   "fill=\"#1f2328\">%.4g</text>\n", ms, bad ? ", a regression" : "", x, y - 4, ms);
  if (bad)
    kr_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\" font-weight=\"bold\" "
                     "fill=\"" KR_REPORT_FAILED_COLOR "\">regression</text>\n", x, y - 17);
}

enum { STRIP_H = 110 };

/* Without times: a strip of the steps, each a box coloured by its verification (the original
 * grey, verified steps in the chart's colour, failed ones red, unknown ones white), under the
 * reason nothing was timed. */
static void steps_strip(Steps *st, const char *untimed) {
  KrBuf *b = st->b;
  kr_buf_printf(b, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\" fill=\"#cf222e\">", PLOT_L);
  esc(b, untimed);
  kr_buf_puts(b, "</text>\n");
  if (st->timings) {
    int x = legend(b, PLOT_R - 260, "<rect x=\"0\" y=\"-6\" width=\"14\" height=\"12\" fill=\""
                                    KR_REPORT_CHART_COLOR "\"/>", "verified");
    legend(b, x, "<rect x=\"0\" y=\"-6\" width=\"14\" height=\"12\" fill=\"" KR_REPORT_FAILED_COLOR "\"/>",
           "failed verification");
  }
  double w = fmin((PLOT_R - PLOT_L) / (double)st->n * 0.8, 120);
  for (size_t i = 0; i < st->n; i++) {
    const char *status = str_of(step_timing(st, i), "status"), *fill = "#ffffff";
    if (!i) fill = "#8c959f";
    else if (status) fill = strcmp(status, "verified") == 0 ? KR_REPORT_CHART_COLOR : KR_REPORT_FAILED_COLOR;
    double x = step_x(i, st->n);
    kr_buf_printf(b, "<rect x=\"%.1f\" y=\"40\" width=\"%.1f\" height=\"34\" fill=\"%s\" stroke=\"#57606a\">"
                     "<title>step %zu: ", x - w / 2, w, fill, i);
    esc(b, i ? str_of(step_pass(st, i), "pass") : "original");
    kr_buf_puts(b, status ? ", " : ""), esc(b, status);
    kr_buf_printf(b, "</title></rect>\n<text x=\"%.1f\" y=\"92\" text-anchor=\"middle\" font-size=\"12\" "
                     "fill=\"#1f2328\">%zu ", x, i);
    esc(b, i ? str_of(step_pass(st, i), "pass") : "original");
    kr_buf_puts(b, "</text>\n");
  }
}

static void steps_chart(Steps *st) {
  KrBuf *b = st->b;
  const char *untimed = steps_untimed(st);
  int h = untimed ? STRIP_H : CHART_H;
  kr_buf_printf(b, "<svg id=\"steps-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n<rect width=\"%d\" height=\"%d\" "
                   "fill=\"#ffffff\"/>\n", CHART_W, h, CHART_W, h,
                untimed ? "the steps, not timed, coloured by verification" : "median time of the original and of each step",
                CHART_W, h);
  if (untimed) {
    steps_strip(st, untimed);
    kr_buf_puts(b, "</svg>\n");
    return;
  }
  double step = nice_step(st->hi * 1.15), hi = ceil(st->hi * 1.15 / step) * step, orig;
  steps_axes(st, hi, step);
  double w = fmin((PLOT_R - PLOT_L) / (double)st->n * 0.6, 60);
  for (size_t i = 0; i < st->n; i++) steps_bar(st, i, hi, w);
  if (step_median(st, 0, &orig)) {
    double y = scale_y(orig, 0, hi);
    kr_buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#1f2328\" stroke-dasharray=\"6 4\"/>\n",
                  PLOT_L, y, PLOT_R, y);
  }
  int x = legend(b, PLOT_L, "<rect x=\"0\" y=\"-6\" width=\"14\" height=\"12\" fill=\"" KR_REPORT_CHART_COLOR "\"/>",
                 "step (median)");
  x = legend(b, x, "<rect x=\"0\" y=\"-6\" width=\"14\" height=\"12\" fill=\"" KR_REPORT_FAILED_COLOR "\"/>",
             "regression: slower than the step before");
  legend(b, x, "<line x1=\"0\" y1=\"0\" x2=\"16\" y2=\"0\" stroke=\"#1f2328\" stroke-dasharray=\"6 4\"/>",
         "the original");
  kr_buf_puts(b, "</svg>\n");
}

/* A ratio cell: "1.23×", a regression in red. */
static void ratio_cell(KrBuf *b, const cJSON *row, const char *key, bool regression) {
  double v;
  if (!num_of(row, key, &v) || !(v > 0)) {
    kr_buf_puts(b, "<td class=\"num\">" DASH "</td>");
    return;
  }
  kr_buf_printf(b, "<td class=\"num%s\">%.3f" TIMES, regression ? " bad" : "", v);
  double prev;
  if (regression && num_of(row, "previous_step", &prev))
    kr_buf_printf(b, "<br>regression: slower than step %.0f", prev);
  kr_buf_puts(b, "</td>");
}

static void steps_row(Steps *st, size_t i) {
  KrBuf *b = st->b;
  const cJSON *t = step_timing(st, i), *ps = step_pass(st, i);
  const char *status = str_of(t, "status");
  kr_buf_printf(b, "<tr%s><td class=\"num\">%zu</td><td>", step_regressed(st, i) ? " class=\"regressed\"" : "", i);
  if (i) {
    kr_buf_printf(b, "<a href=\"#%s-%zu\"><code>", st->anchor, i);
    esc_or_dash(b, str_of(ps, "pass"));
    kr_buf_puts(b, "</code></a></td><td><code>");
    value_text(b, get(ps, "given"), 0);
    kr_buf_puts(b, "</code></td><td><code>");
    esc_or_dash(b, str_of(ps, "kernel"));
    kr_buf_puts(b, "</code></td><td>");
    esc_or_dash(b, str_of(ps, "precision"));
  } else kr_buf_puts(b, "original</td><td>" DASH "</td><td>" DASH "</td><td>" DASH);
  const cJSON *v = get(t, "verification");
  double ok, bad, ms;
  kr_buf_printf(b, "</td><td class=\"%s\">", status && !strcmp(status, "verified") ? "ok" : i && t ? "bad" : "");
  if (!i) kr_buf_puts(b, "reference");
  else if (num_of(v, "passed", &ok) && num_of(v, "failed", &bad))
    kr_buf_printf(b, "%s: %.0f passed, %.0f failed", status ? status : "?", ok, bad);
  else esc_or_dash(b, status);
  if (step_median(st, i, &ms)) kr_buf_printf(b, "</td><td class=\"num\">%.4g ms</td>", ms);
  else kr_buf_puts(b, "</td><td class=\"num\">" DASH "</td>");
  ratio_cell(b, t, "vs_original", false);
  ratio_cell(b, t, "vs_previous", step_regressed(st, i));
  bool any = false;
  kr_buf_puts(b, "<td class=\"notes small\">");
  const cJSON *ff = get(v, "first_failure");
  if (cJSON_IsString(ff)) note(b, &any, "err", ff->valuestring);
  if (str_of(t, "timing_note") && !step_median(st, i, &ms)) note(b, &any, "muted", str_of(t, "timing_note"));
  if (!any) kr_buf_puts(b, DASH);
  kr_buf_puts(b, "</td></tr>\n");
}

static void steps_table(Steps *st) {
  KrBuf *b = st->b;
  kr_buf_puts(b, "<table id=\"steps\">\n<tr><th>step</th><th>pass</th><th>arguments</th>"
                 "<th>kernel</th><th>precision</th><th>verification</th><th>median</th><th>vs original</th>"
                 "<th>vs previous</th><th>notes</th></tr>\n");
  for (size_t i = 0; i < st->n; i++) steps_row(st, i);
  kr_buf_puts(b, "</table>\n<p class=\"muted small\">vs original: the original's median over the step's; vs "
                 "previous: the previous timed step's over this one's (above 1: faster).");
  if (!st->timings) kr_buf_puts(b, " Verification and times come from --timings (bench --steps --json).");
  kr_buf_puts(b, "</p>\n");
}

/* ---- The best kernel ------------------------------------------------------------------------- */

/* The steps of the best recipe: run.json's best_steps, the output of bench --steps --json that
 * the search made for it, drawn as the steps page draws them, each pass linked to its diff below
 * (#pass-N); or one line saying why there are none. Timings of another recipe (a run.json edited
 * by hand, or written by a search that lost track) are said so, not drawn. */
static void best_steps(Page *p, const cJSON *log) {
  KrBuf *b = p->b;
  const cJSON *t = get(p->root, "best_steps");
  const char *err = str_of(t, "error");
  Steps st;
  kr_buf_puts(b, "<h3 id=\"best-steps\">Steps of the best recipe</h3>\n");
  if (!t || cJSON_IsNull(t)) {
    kr_buf_printf(b, "<p class=\"muted steps-note\">run.json records no step timings for the best recipe "
                     "(best_steps): a search without a GPU does not time steps, and run.json files written "
                     "before searches recorded them have none. <code>krewrite bench PROBLEM.lua --recipe "
                     "DIR/cand-%d.lua --steps --json</code> times them.</p>\n", p->sum.best_id);
    return;
  }
  if (err && *err) {
    kr_buf_puts(b, "<p class=\"warn steps-note\">bench --steps failed on the best recipe, so there is no step "
                   "table: ");
    esc(b, err);
    kr_buf_puts(b, "</p>\n");
    return;
  }
  const char *why = steps_build(&st, b, log, t, "pass", p->arena);
  if (why) {
    kr_buf_puts(b, "<p class=\"warn steps-note\">The step timings in run.json (best_steps) are not of the best "
                   "recipe, so there is no step table: ");
    esc(b, why);
    kr_buf_puts(b, ".</p>\n");
    return;
  }
  kr_buf_puts(b, "<p>The original, then the text after each pass of the recipe: ");
  steps_timed_on(&st);
  if (st.sum.timed) kr_buf_puts(b, ". Regressions: "), steps_regressions(&st);
  kr_buf_puts(b, ".</p>\n");
  steps_chart(&st);
  steps_table(&st);
}

static void best_section(Page *p) {
  KrBuf *b = p->b;
  const cJSON *best = get(p->root, "best"), *log = get(p->root, "best_log");
  kr_buf_puts(b, "<h2>Best kernel</h2>\n");
  if (p->sum.best_id < 0) {
    kr_buf_puts(b, "<p>No candidate verified, so there is no best kernel.</p>\n");
    return;
  }
  kr_buf_printf(b, "<p>Candidate %d, round %d: ", p->sum.best_id, int_of(best, "round", 0));
  if (p->sum.best_speedup > 0)
    kr_buf_printf(b, "<b>%.3g" TIMES "</b> the speed of the original.", p->sum.best_speedup);
  else esc_or_dash(b, str_of(best, "note"));
  kr_buf_puts(b, "</p>\n<h3>Recipe</h3>\n<pre class=\"recipe\">");
  const char *recipe = str_of(best, "recipe");
  esc_or_dash(b, recipe ? recipe : str_of(get(log, "recipe"), "text"));
  kr_buf_puts(b, "</pre>\n");
  if (!cJSON_IsObject(log)) {
    kr_buf_puts(b, "<p class=\"muted\">run.json holds no apply log for the best candidate "
                   "(best_log), so its passes cannot be shown.</p>\n");
    return;
  }
  best_steps(p, log);
  log_passes(p->b, log, "Pass", "pass");
  const cJSON *in = get(log, "input"), *out = get(log, "output");
  kr_buf_puts(b, "<p class=\"muted small\">input ");
  esc_or_dash(b, str_of(in, "path"));
  kr_buf_puts(b, " sha256 ");
  esc_or_dash(b, str_of(in, "sha256"));
  kr_buf_puts(b, "; output sha256 ");
  esc_or_dash(b, str_of(out, "sha256"));
  kr_buf_puts(b, "</p>\n");
}

/* ---- Rounds and candidates ------------------------------------------------------------------- */

/* A round's profile. Nsight Compute's (search/profile.h) reads as its class, kernel, duration
 * and the class's metrics ("memory-bandwidth-bound (vector_add, 0.21 ms): DRAM 87.1 %, ...");
 * any other form is shown as it is. */
static void profile_cell(KrBuf *b, const cJSON *prof) {
  const char *cls = str_of(prof, "class");
  const cJSON *metrics = get(prof, "metrics"), *m, *launches = get(prof, "launches");
  double v;
  if (!cls) {
    value_text(b, prof, 0);
    return;
  }
  kr_buf_puts(b, "<b>"), esc(b, cls), kr_buf_puts(b, "</b> (");
  esc_or_dash(b, str_of(prof, "kernel"));
  if (num_of(prof, "duration_ms", &v)) kr_buf_printf(b, ", %.4g ms", v);
  kr_buf_puts(b, ")");
  if (str_of(prof, "why")) kr_buf_puts(b, ": "), esc(b, str_of(prof, "why"));
  bool first = true;
  if (!cJSON_IsObject(metrics)) metrics = NULL;
  cJSON_ArrayForEach(m, metrics) {
    const char *label = str_of(m, "label"), *unit = str_of(m, "unit");
    kr_buf_puts(b, first ? "<br>" : ", ");
    first = false;
    esc(b, label ? label : m->string);
    if (num_of(m, "value", &v)) kr_buf_printf(b, " %.4g", v);
    else if (!cJSON_IsObject(m)) kr_buf_putc(b, ' '), value_text(b, m, 1);
    else kr_buf_puts(b, " n/a");
    if (unit && *unit && num_of(m, "value", &v)) kr_buf_putc(b, ' '), esc(b, unit);
  }
  if (cJSON_IsArray(launches) && cJSON_GetArraySize(launches) > 1)
    kr_buf_printf(b, "<br>%d launches profiled", cJSON_GetArraySize(launches));
}

static void round_row(Page *p, const cJSON *r, size_t i) {
  KrBuf *b = p->b;
  size_t n = 0, ok = 0, timed = 0;
  double best = 0, s, v;
  const cJSON *c;
  cJSON_ArrayForEach(c, candidates_of(r)) {
    if (!cJSON_IsObject(c)) continue;
    n++, ok += is_verified(c);
    if (speedup_of(c, &s)) timed++, best = is_verified(c) ? fmax(best, s) : best;
  }
  kr_buf_printf(b, "<tr><td class=\"num\">%d</td><td>", round_label(r, i));
  esc_or_dash(b, str_of(r, "proposer"));
  kr_buf_printf(b, "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td>"
                   "<td class=\"num\">%zu</td><td class=\"num\">", n, ok, timed);
  if (best > 0) kr_buf_printf(b, "%.3g" TIMES, best);
  else kr_buf_puts(b, DASH);
  const cJSON *tok = get(r, "tokens");
  double pt = 0, ct = 0;
  if (!num_of(tok, "prompt", &pt)) pt = 0;
  if (!num_of(tok, "completion", &ct)) ct = 0;
  if (pt + ct > 0) kr_buf_printf(b, "</td><td class=\"num\">%.0f / %.0f", pt, ct);
  else kr_buf_puts(b, "</td><td class=\"num\">" DASH);
  if (num_of(r, "cost", &v)) kr_buf_printf(b, "</td><td class=\"num\">%.4g", v);
  else kr_buf_puts(b, "</td><td class=\"num\">" DASH);
  kr_buf_puts(b, "</td><td class=\"notes small\">");
  const cJSON *rej = get(r, "rejected");
  if (cJSON_IsArray(rej) && rej->child) value_text(b, rej, 1);
  else kr_buf_puts(b, "none");
  if (p->has_profile) {
    kr_buf_puts(b, "</td><td class=\"notes small\">");
    profile_cell(b, get(r, "profile"));
  }
  kr_buf_puts(b, "</td></tr>\n");
}

static void rounds_table(Page *p) {
  KrBuf *b = p->b;
  kr_buf_puts(b, "<h2>Rounds</h2>\n<table id=\"rounds\">\n<tr><th>round</th><th>proposer</th>"
                 "<th>candidates</th><th>verified</th><th>timed</th><th>best speedup</th>"
                 "<th>tokens (prompt / completion)</th><th>cost</th><th>rejected replies</th>");
  if (p->has_profile) kr_buf_puts(b, "<th>profile</th>");
  kr_buf_puts(b, "</tr>\n");
  const cJSON *r;
  size_t i = 0;
  cJSON_ArrayForEach(r, p->rounds) round_row(p, r, i++);
  kr_buf_puts(b, "</table>\n");
}

static void ms_cell(KrBuf *b, const cJSON *times, const char *key) {
  double v;
  if (num_of(times, key, &v)) kr_buf_printf(b, "<td class=\"num\">%.4g ms</td>", v);
  else kr_buf_puts(b, "<td class=\"num\">" DASH "</td>");
}

static void verification_cell(KrBuf *b, const cJSON *c) {
  const cJSON *v = get(c, "verification");
  double ok, bad;
  kr_buf_puts(b, "<td class=\"num\">");
  if (num_of(v, "passed", &ok) && num_of(v, "failed", &bad))
    kr_buf_printf(b, "%.0f / <span class=\"%s\">%.0f</span>", ok, bad > 0 ? "bad" : "", bad);
  else kr_buf_puts(b, DASH);
  kr_buf_puts(b, "</td>");
}

/* The error, the first failing case and the timing note, whichever are present. */
static void notes_cell(KrBuf *b, const cJSON *c) {
  const char *err = str_of(c, "error"), *timing = str_of(c, "timing_note");
  const cJSON *ff = get(get(c, "verification"), "first_failure");
  bool any = false;
  kr_buf_puts(b, "<td class=\"notes small\">");
  if (err && *err) note(b, &any, "err", err);
  bool repeat = err && cJSON_IsString(ff) && strcmp(ff->valuestring, err) == 0;
  if (ff && !cJSON_IsNull(ff) && !repeat) {
    kr_buf_puts(b, any ? "<br>first failure: " : "first failure: ");
    value_text(b, ff, 1);
    any = true;
  }
  if (timing && *timing) note(b, &any, "muted", timing);
  if (!any) kr_buf_puts(b, DASH);
  kr_buf_puts(b, "</td>");
}

/* Seconds, to a precision that suits them: "0.02 s", "1.3 s", "42 s". */
static void seconds(KrBuf *b, double v) {
  if (v == 0) kr_buf_puts(b, "0 s");
  else if (v < 0.01) kr_buf_puts(b, "&lt;0.01 s");
  else kr_buf_printf(b, v < 1 ? "%.2f s" : v < 10 ? "%.1f s" : "%.0f s", v);
}

/* How long each stage of a candidate took: "apply 0.02 s, build 1.3 s, verify 4.1 s, time 2.0 s";
 * a stage that did not run (null) is left out. */
static void stages_cell(KrBuf *b, const cJSON *c) {
  static const struct { const char *key, *name; } stages[] = {
    {"apply_s", "apply"}, {"build_s", "build"}, {"verify_s", "verify"}, {"time_s", "time"}};
  const cJSON *st = get(c, "stages");
  bool any = false;
  kr_buf_puts(b, "<td class=\"small stages\">");
  for (size_t i = 0; i < sizeof stages / sizeof *stages; i++) {
    double v;
    if (!num_of(st, stages[i].key, &v) || v < 0) continue;
    kr_buf_printf(b, "%s%s ", any ? ", " : "", stages[i].name);
    seconds(b, v);
    any = true;
  }
  if (!any) kr_buf_puts(b, DASH);
  kr_buf_puts(b, "</td>");
}

/* A candidate's compile report. */
static void resources_cell(KrBuf *b, const cJSON *c) {
  kr_buf_puts(b, "<td class=\"small\">");
  resources_html(b, get(c, "compile"));
  kr_buf_puts(b, "</td>");
}

static void candidate_row(Page *p, const cJSON *c, int round) {
  KrBuf *b = p->b;
  int id = int_of(c, "id", -1);
  bool best = id >= 0 && id == p->sum.best_id;
  double s;
  kr_buf_printf(b, "<tr%s><td class=\"num\">%d%s</td><td class=\"num\">%d</td>"
                   "<td class=\"idea\">", best ? " class=\"best\"" : "", id,
                best ? "<span class=\"badge\">best</span>" : "", int_of(c, "round", round));
  esc_or_dash(b, str_of(c, "idea"));
  kr_buf_puts(b, "</td><td class=\"reason\">");
  esc_or_dash(b, str_of(c, "reason"));
  kr_buf_printf(b, "</td><td class=\"%s\">", is_verified(c) ? "ok" : "bad");
  esc_or_dash(b, str_of(c, "status"));
  kr_buf_puts(b, "</td>");
  verification_cell(b, c);
  ms_cell(b, get(c, "times"), "original_median_ms");
  ms_cell(b, get(c, "times"), "candidate_median_ms");
  if (speedup_of(c, &s)) kr_buf_printf(b, "<td class=\"num\"><b>%.3g" TIMES "</b></td>", s);
  else kr_buf_puts(b, "<td class=\"num\">" DASH "</td>");
  if (p->has_resources) resources_cell(b, c);
  if (p->has_stages) stages_cell(b, c);
  notes_cell(b, c);
  kr_buf_puts(b, "</tr>\n");
}

static void candidates_table(Page *p) {
  KrBuf *b = p->b;
  kr_buf_puts(b, "<h2>Candidates</h2>\n<table id=\"candidates\">\n<tr><th>id</th><th>round</th>"
                 "<th>idea</th><th>reason</th><th>status</th><th>verification (passed / "
                 "failed)</th><th>original median</th><th>candidate median</th>"
                 "<th>speedup</th>");
  if (p->has_resources) kr_buf_puts(b, "<th>resources (registers, spills, shared memory)</th>");
  if (p->has_stages) kr_buf_puts(b, "<th>stage times</th>");
  kr_buf_puts(b, "<th>error and notes</th></tr>\n");
  const cJSON *r, *c;
  size_t i = 0;
  cJSON_ArrayForEach(r, p->rounds) {
    cJSON_ArrayForEach(c, candidates_of(r))
      if (cJSON_IsObject(c)) candidate_row(p, c, round_label(r, i));
    i++;
  }
  kr_buf_puts(b, "</table>\n");
  if (!p->sum.candidates) kr_buf_puts(b, "<p class=\"muted\">No candidates were tried.</p>\n");
}

/* ---- Pruned schedules ---------------------------------------------------------------------------- */

static void pruned_row(KrBuf *b, int round, const char *idea, const char *label, const char *verdict,
                       const char *why) {
  kr_buf_printf(b, "<tr><td>%d</td><td>", round);
  esc_or_dash(b, idea);
  kr_buf_puts(b, "</td><td>");
  esc_or_dash(b, label);
  kr_buf_puts(b, "</td><td>");
  esc_or_dash(b, verdict);
  kr_buf_puts(b, "</td><td>");
  esc_or_dash(b, why);
  kr_buf_puts(b, "</td></tr>\n");
}

/* Every schedule of a grid that was not timed, with why: refused by the schedule checks or by
 * its resources, ranked below the kept ones, or never compiled. */
static void pruning_table(Page *p) {
  KrBuf *b = p->b;
  bool any = false;
  const cJSON *r, *pr, *c;
  size_t i = 0;
  cJSON_ArrayForEach(r, p->rounds) {
    int round = round_label(r, i++);
    cJSON_ArrayForEach(pr, get(r, "pruning")) {
      if (!any) {
        kr_buf_puts(b, "<h2>Pruned schedules</h2>\n<table id=\"pruning\">\n<tr><th>round</th><th>idea</th>"
                       "<th>schedule</th><th>verdict</th><th>why</th></tr>\n");
        any = true;
      }
      const char *idea = str_of(pr, "idea");
      if (str_of(pr, "note")) pruned_row(b, round, idea, NULL, "note", str_of(pr, "note"));
      cJSON_ArrayForEach(c, get(pr, "refused_by_checks"))
        pruned_row(b, round, idea, str_of(c, "label"), "refused by the schedule checks", str_of(c, "why"));
      cJSON_ArrayForEach(c, get(pr, "candidates")) {
        const char *v = str_of(c, "verdict");
        if (v && strcmp(v, "kept") != 0) pruned_row(b, round, idea, str_of(c, "label"), v, str_of(c, "why"));
      }
    }
  }
  if (any) kr_buf_puts(b, "</table>\n");
}

/* ---- The steps page (krewrite report PROBLEM.lua --recipe R.lua [--timings T.json]) ------- */

static void steps_summary(Steps *st, const KrReportSteps *in) {
  KrBuf *b = st->b;
  kr_buf_puts(b, "<table class=\"kv\" id=\"steps-summary\">\n");
  kv_text(b, "problem", in->problem);
  kr_buf_puts(b, "<tr><th>source</th><td>");
  esc_or_dash(b, str_of(get(st->log, "input"), "path"));
  kr_buf_puts(b, " <span class=\"muted small\">sha256 ");
  esc_or_dash(b, str_of(get(st->log, "input"), "sha256"));
  kr_buf_puts(b, "</span></td></tr>\n");
  kv_text(b, "recipe", str_of(get(st->log, "recipe"), "path"));
  kr_buf_puts(b, "<tr><th>timings</th><td>");
  if (st->timings) {
    esc(b, in->timings_path);
    kr_buf_puts(b, ": ");
    steps_timed_on(st);
  } else esc(b, steps_untimed(st));
  kr_buf_puts(b, "</td></tr>\n");
  kr_buf_printf(b, "<tr><th>counts</th><td>%zu steps: the original and %zu passes", st->n, st->n - 1);
  if (st->timings) kr_buf_printf(b, "; %zu verified, %zu timed", st->sum.verified, st->sum.timed);
  kr_buf_puts(b, "</td></tr>\n<tr><th>regressions</th><td>");
  steps_regressions(st);
  kr_buf_puts(b, "</td></tr>\n</table>\n");
}

static void steps_page(Steps *st, const KrReportSteps *in) {
  KrBuf *b = st->b;
  kr_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<title>krewrite report: ");
  esc_or_dash(b, in->problem);
  kr_buf_printf(b, ", the steps of a recipe</title>\n<style>\n%s</style>\n</head>\n<body>\n"
                   "<h1>krewrite recipe steps: ", STYLE);
  esc_or_dash(b, in->problem);
  kr_buf_puts(b, "</h1>\n<p class=\"muted\">each pass the recipe applied, in order, timed against the original "
                 "and the step before</p>\n");
  steps_summary(st, in);
  kr_buf_puts(b, "<h2>Time per step</h2>\n");
  steps_chart(st);
  kr_buf_puts(b, "<h2>Steps</h2>\n");
  steps_table(st);
  kr_buf_puts(b, "<h2>Recipe</h2>\n<pre class=\"recipe\">");
  esc_or_dash(b, str_of(get(st->log, "recipe"), "text"));
  kr_buf_puts(b, "</pre>\n<h2>Each step's diff</h2>\n");
  log_passes(b, st->log, "Step", st->anchor);
  kr_buf_puts(b, "</body>\n</html>\n");
}

KrStatus kr_report_steps_html(const KrReportSteps *in, KrBuf *out, KrReportSummary *sum, KrDiags *d) {
  cJSON *log = kr_recipe_json_parse(in->log_path, in->log, in->log_len, "the recipe's apply log", d), *timings = NULL;
  KrStatus rc = KR_ERR;
  KrBuf b = {0};
  Steps st;
  if (!log) return KR_ERR;
  if (!cJSON_IsArray(get(log, "passes"))) {
    kr_diag_pos(d, KR_DIAG_ERROR, in->log_path, 0, 0, "not an apply log: no \"passes\" list");
    goto done;
  }
  if (in->timings) {
    timings = kr_recipe_json_parse(in->timings_path, in->timings, in->timings_len,
                                   "the output of krewrite bench --steps --json", d);
    if (!timings) goto done;
  }
  const char *why = steps_build(&st, &b, log, timings, "step", d->arena);
  if (why) {
    kr_diag_pos(d, KR_DIAG_ERROR, in->timings_path, 0, 0, "these timings are not of %s on this problem: %s",
                in->recipe_path ? in->recipe_path : "the recipe", why);
    goto done;
  }
  steps_page(&st, in);
  kr_buf_append(out, b.data, b.len);
  if (sum) *sum = st.sum;
  kr_buf_free(&b);
  rc = KR_OK;
done:
  cJSON_Delete(timings);
  cJSON_Delete(log);
  return rc;
}

/* ---- Entry point ----------------------------------------------------------------------------- */

/* Parses `json` and checks that it is a search trajectory; the caller frees *root. */
static KrStatus load(const char *path, const char *json, size_t len, cJSON **root, KrDiags *d) {
  *root = kr_recipe_json_parse(path, json, len, "the run.json of krewrite optimize", d);
  if (!*root) return KR_ERR;
  const char *tool = str_of(*root, "tool");
  const char *why = NULL;
  if (!cJSON_IsObject(*root)) why = "the top level is not an object";
  else if (!tool || strncmp(tool, "krewrite", 8) != 0) why = "no \"tool\": \"krewrite ...\" field";
  else if (!cJSON_IsArray(get(*root, "rounds")))
    why = get(*root, "passes") ? "this is an apply log (krewrite apply --log, or best.json), "
                                 "which has no \"rounds\""
                               : "no \"rounds\" list";
  if (!why) return KR_OK;
  kr_diag_pos(d, KR_DIAG_ERROR, path, 0, 0, "not a krewrite search trajectory: %s; expected the "
              "run.json of krewrite optimize", why);
  cJSON_Delete(*root);
  *root = NULL;
  return KR_ERR;
}

KrStatus kr_report_html(const char *path, const char *json, size_t len, KrBuf *out,
                        KrReportSummary *sum, KrDiags *diags) {
  cJSON *root;
  if (load(path, json, len, &root, diags) != KR_OK) return KR_ERR;
  KrBuf b = {0};
  Page p = {.b = &b, .arena = diags->arena, .root = root, .rounds = get(root, "rounds")};
  count(&p);
  page_head(&p);
  summary(&p);
  chart(&p);
  best_section(&p);
  rounds_table(&p);
  candidates_table(&p);
  pruning_table(&p);
  kr_buf_puts(&b, "</body>\n</html>\n");
  kr_buf_append(out, b.data, b.len);
  if (sum) *sum = p.sum;
  kr_buf_free(&b);
  cJSON_Delete(root);
  return KR_OK;
}
