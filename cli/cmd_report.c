/* cli/cmd_report.c: `krewrite report RUN.json [-o REPORT.html]`: the trajectory of `krewrite
 * optimize` as one self-contained HTML page; with --recipe, the steps of one recipe, timed by
 * `krewrite bench --steps --json` (search/report.h). */
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "recipes/recipe.h"
#include "runtime/spec.h"
#include "search/report.h"

static const char *report_help =
  "usage: krewrite report RUN.json [-o REPORT.html]\n"
  "       krewrite report PROBLEM.lua --recipe R.lua [--timings STEPS.json] [-D name=value]...\n"
  "                       [-o REPORT.html]\n"
  "\n"
  "Renders the trajectory that `krewrite optimize --out DIR` writes (DIR/run.json) as one\n"
  "self-contained HTML page (inline CSS and SVG; no scripts, nothing fetched):\n"
  "  - a summary: problem, proposer, device, whether timed, stop reason, counts, the best, and\n"
  "    when recorded the best's fraction of the floor and its speed against PyTorch;\n"
  "  - a chart of each timed candidate's speedup per round with the best so far (without\n"
  "    timings: verified and failed candidates per round, marked \"not timed: no GPU\");\n"
  "  - the best candidate's recipe, the steps of that recipe as --recipe draws them (below;\n"
  "    from run.json's best_steps, or a line saying why there are none), and the diff of each\n"
  "    of its passes, with parameters, precision, tolerance and assumptions;\n"
  "  - the rounds, and every candidate with its status, verification, median times, speedup,\n"
  "    resources and stage times (when recorded) and error.\n"
  "\n"
  "With --recipe, the steps of one recipe on the problem's source instead: the original, then the\n"
  "text after each pass the recipe applied, in order. The page holds a summary, a chart of each\n"
  "step's median time (the original's dashed, regressions in red), a table of the steps (pass,\n"
  "arguments, kernel, precision, verification, median, speed against the original and against\n"
  "the previous step, regressions marked), the recipe, and each pass's diff, named by file and\n"
  "pass (\"kernel.cu, after pass 2 (ldg)\"). The recipe is applied here, for the steps and their\n"
  "diffs; verification and times come from --timings, the output of `krewrite bench PROBLEM.lua\n"
  "--recipe R.lua --steps --json` (on a GPU machine, say), which must be of the same recipe on\n"
  "the same source.\n"
  "Text from the files (ideas, reasons, recipes, diffs) is HTML-escaped.\n"
  "  --recipe R.lua       render the steps of R.lua on PROBLEM.lua's source\n"
  "  --timings FILE       with --recipe: each step's verification and times (bench --steps --json)\n"
  "  -D name=value        with --recipe: a recipe parameter, as bench was given it\n"
  "  -o, --out FILE       where the page goes (default: report.html in RUN.json's folder, or in\n"
  "                       the timings' folder with --recipe, else the current one; - for stdout);\n"
  "                       written atomically, so a failed run leaves no partial file\n"
  "With --recipe, -I and --define as for verify:\n"
  KR_CLI_BUILD_HELP
  "Exit status: 0 written, 1 RUN.json is not JSON or not a search trajectory (with --recipe: the\n"
  "spec or the recipe failed, or the timings are not JSON or not of this recipe and source), 2\n"
  "usage or environment trouble (bad flags, a file missing, the page cannot be written).\n";

typedef struct ReportArgs {
  const char *in, *out;      /* RUN.json, or PROBLEM.lua with --recipe */
  const char *recipe, *timings;
  KrRecipeOptions ropt;
  KrBuildFlags build;
} ReportArgs;

static int usage(KrDiags *d, const char *msg, const char *arg) {
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "report: %s%s%s%s", msg, arg ? " '" : "",
              arg ? arg : "", arg ? "'" : "");
  return KR_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, ReportArgs *r, KrArena *a, KrDiags *d) {
  kr_recipe_options_init(&r->ropt, a);
  r->ropt.print = kr_cli_recipe_print;
  bool defined = false;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int bflag = kr_cli_build_flag(argc, argv, &i, &r->build, a, d);
    if (bflag < 0) return KR_EXIT_USAGE;
    if (bflag) {
      defined = true;
      continue;
    }
    if ((strcmp(s, "-o") == 0 || strcmp(s, "--out") == 0) && val) r->out = argv[++i];
    else if (strcmp(s, "--recipe") == 0 && val) r->recipe = argv[++i];
    else if (strcmp(s, "--timings") == 0 && val) r->timings = argv[++i];
    else if (strcmp(s, "-D") == 0 && val) {
      if (kr_recipe_define(&r->ropt, a, argv[++i], d) != KR_OK) return KR_EXIT_USAGE;
      defined = true;
    } else if (s[0] == '-' && s[1]) return usage(d, "unknown option or missing value:", s);
    else if (!r->in) r->in = s;
    else return usage(d, "unexpected argument", s);
  }
  if (!r->in) return usage(d, r->recipe ? "--recipe needs PROBLEM.lua (see krewrite report --help)"
                                        : "needs RUN.json (see krewrite report --help)", NULL);
  if (!r->recipe && (r->timings || defined))
    return usage(d, r->timings ? "--timings goes with --recipe R.lua (the steps it times are the recipe's)"
                               : "-D, -I and --define go with --recipe R.lua", NULL);
  const char *const files[] = {r->in, r->recipe, r->timings};
  const char *const what[] = {"problem spec", "recipe", "timings"};
  if (r->recipe && !kr_cli_files_readable(3, files, what, d)) return KR_EXIT_USAGE;
  return KR_EXIT_OK;
}

/* report.html in the folder of `in` ("report.html" when `in` is NULL or names no folder). */
static const char *default_out(const char *in, KrArena *a) {
  const char *slash = in ? strrchr(in, '/') : NULL;
  if (!slash) return "report.html";
  return kr_arena_printf(a, "%.*sreport.html", (int)(slash - in + 1), in);
}

/* Writing the page over a file it is made from would lose that file. (A device or a pipe,
 * -o /dev/null, is written in place by kr_file_write_atomic.) */
static int check_out(const char *const *ins, const char *const *whats, size_t n, const char *out, KrDiags *d) {
  struct stat si, so;
  if (strcmp(out, "-") == 0 || stat(out, &so) != 0) return KR_EXIT_OK;
  for (size_t i = 0; i < n; i++)
    if (ins[i] && stat(ins[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
      return usage(d, kr_arena_printf(d->arena, "the output would overwrite the %s it is made from:", whats[i]), out);
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

/* The recipe applied once to the problem's source: its apply log, the steps' source. */
static int recipe_log(const ReportArgs *r, const KrSpec *spec, KrArena *a, KrBuf *log, KrDiags *d) {
  char *src, *text;
  size_t src_len, text_len;
  KrRecipeRun *run = NULL;
  if (kr_file_read(spec->source, a, &src, &src_len, d) != KR_OK ||
      kr_file_read(r->recipe, a, &text, &text_len, d) != KR_OK)
    return KR_EXIT_USAGE;
  KrRecipeOptions ro = r->ropt;
  ro.build = &spec->build;
  if (kr_recipe_apply(r->recipe, text, text_len, spec->source, src, src_len, &ro, &run, d) != KR_OK)
    return KR_EXIT_INPUT;
  kr_recipe_log_json(run, log);
  kr_recipe_run_free(run);
  return KR_EXIT_OK;
}

static int render_steps(const ReportArgs *r, const char *out, KrArena *a, KrDiags *d) {
  KrSpec *spec;
  if (kr_spec_load_with(r->in, &r->build, a, &spec, d) != KR_OK) return KR_EXIT_INPUT;
  KrBuf log = {0}, page = {0};
  KrReportSteps in = {.problem = spec->name, .recipe_path = r->recipe, .log_path = r->recipe,
                      .timings_path = r->timings};
  char *timings = NULL;
  int rc = recipe_log(r, spec, a, &log, d);
  if (rc == KR_EXIT_OK && r->timings && kr_file_read(r->timings, a, &timings, &in.timings_len, d) != KR_OK)
    rc = KR_EXIT_USAGE;
  in.log = log.data, in.log_len = log.len, in.timings = timings;
  KrReportSummary sum;
  if (rc == KR_EXIT_OK) rc = kr_report_steps_html(&in, &page, &sum, d) == KR_OK ? KR_EXIT_OK : KR_EXIT_INPUT;
  if (rc == KR_EXIT_OK) rc = kr_cli_emit(out, page.data, page.len, d);
  kr_buf_free(&log);
  kr_buf_free(&page);
  if (rc != KR_EXIT_OK || strcmp(out, "-") == 0) return rc;
  printf("report: %s (%zu steps: the original and %zu passes", out, sum.steps, sum.steps - 1);
  if (r->timings) printf(", %zu verified, %zu timed", sum.verified, sum.timed);
  printf(")\n");
  return KR_EXIT_OK;
}

int kr_cmd_report(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(report_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  ReportArgs r = {0};
  int rc = parse_args(argc, argv, &r, a, d);
  const char *out = r.out;
  if (rc == KR_EXIT_OK && !out) out = default_out(r.recipe ? r.timings : r.in, a);
  const char *const ins[] = {r.in, r.recipe, r.timings};
  const char *const whats[] = {r.recipe ? "problem spec" : "trajectory", "recipe", "timings"};
  if (rc == KR_EXIT_OK) rc = check_out(ins, whats, 3, out, d);
  if (rc == KR_EXIT_OK) rc = r.recipe ? render_steps(&r, out, a, d) : render(r.in, out, a, d);
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(a);
  return rc;
}
