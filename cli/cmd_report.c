/* cli/cmd_report.c: `krewrite report RUN.json [-o REPORT.html]`: the trajectory of `krewrite
 * optimize` as one self-contained HTML page (search/report.h). */
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "search/report.h"

static const char *report_help =
  "usage: krewrite report RUN.json [-o REPORT.html]\n"
  "\n"
  "Renders the trajectory that `krewrite optimize --out DIR` writes (DIR/run.json) as one\n"
  "self-contained HTML page (inline CSS and SVG; no scripts, nothing fetched):\n"
  "  - a summary: problem, proposer, device, whether timed, stop reason, counts, the best;\n"
  "  - a chart of each timed candidate's speedup per round with the best so far (without\n"
  "    timings: verified and failed candidates per round, marked \"not timed: no GPU\");\n"
  "  - the best candidate's recipe and the diff of each of its passes, with parameters,\n"
  "    precision, tolerance and assumptions;\n"
  "  - the rounds, and every candidate with its status, verification, median times, speedup,\n"
  "    resources (when recorded) and error.\n"
  "Text from the file (ideas, reasons, recipes, diffs) is HTML-escaped.\n"
  "  -o, --out FILE   where the page goes (default: report.html in RUN.json's folder; - for\n"
  "                   stdout); written atomically, so a failed run leaves no partial file\n"
  "Exit status: 0 written, 1 RUN.json is not JSON or not a search trajectory, 2 usage or\n"
  "environment trouble (bad flags, RUN.json missing, the page cannot be written).\n";

static int usage(KrDiags *d, const char *msg, const char *arg) {
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "report: %s%s%s%s", msg, arg ? " '" : "",
              arg ? arg : "", arg ? "'" : "");
  return KR_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, const char **in, const char **out, KrDiags *d) {
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if ((strcmp(s, "-o") == 0 || strcmp(s, "--out") == 0) && i + 1 < argc) *out = argv[++i];
    else if (s[0] == '-' && s[1]) return usage(d, "unknown option or missing value:", s);
    else if (!*in) *in = s;
    else return usage(d, "unexpected argument", s);
  }
  if (!*in) return usage(d, "needs RUN.json (see krewrite report --help)", NULL);
  return KR_EXIT_OK;
}

/* report.html in the folder of `in` ("report.html" when `in` names no folder). */
static const char *default_out(const char *in, KrArena *a) {
  const char *slash = strrchr(in, '/');
  if (!slash) return "report.html";
  return kr_arena_printf(a, "%.*sreport.html", (int)(slash - in + 1), in);
}

/* Writing the page over the trajectory it was made from would lose the trajectory. (A device or
 * a pipe, -o /dev/null, is written in place by kr_file_write_atomic.) */
static int check_out(const char *in, const char *out, KrDiags *d) {
  struct stat si, so;
  if (strcmp(out, "-") == 0 || stat(out, &so) != 0) return KR_EXIT_OK;
  if (stat(in, &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
    return usage(d, "the output would overwrite the trajectory it is made from:", out);
  return KR_EXIT_OK;
}

static int render(const char *in, const char *out, KrArena *a, KrDiags *d) {
  char *json;
  size_t len;
  if (kr_file_read(in, a, &json, &len, d) != KR_OK) return KR_EXIT_USAGE;
  KrBuf page = {0};
  KrReportSummary sum;
  int rc = KR_EXIT_INPUT;
  if (kr_report_html(in, json, len, &page, &sum, d) == KR_OK)
    rc = kr_cli_emit(out, page.data, page.len, d);
  kr_buf_free(&page);
  if (rc != KR_EXIT_OK || strcmp(out, "-") == 0) return rc;
  printf("report: %s (%zu rounds, %zu candidates, %zu verified, %zu timed)\n", out, sum.rounds,
         sum.candidates, sum.verified, sum.timed);
  return KR_EXIT_OK;
}

int kr_cmd_report(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(report_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *in = NULL, *out = NULL;
  int rc = parse_args(argc, argv, &in, &out, d);
  if (rc == KR_EXIT_OK && !out) out = default_out(in, a);
  if (rc == KR_EXIT_OK) rc = check_out(in, out, d);
  if (rc == KR_EXIT_OK) rc = render(in, out, a, d);
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(a);
  return rc;
}
