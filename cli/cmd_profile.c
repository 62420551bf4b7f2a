/* cli/cmd_profile.c: `krewrite profile problem.lua [--recipe R.lua | --candidate F.cu]`: the
 * candidate's launches under Nsight Compute, classified (search/profile.h). Also the hidden
 * `krewrite profile --launch-once ...` mode that ncu starts: one set of the spec's launches in
 * this process (runtime/cuda_once.h), errors on stderr behind KR_LAUNCH_ONCE_PREFIX so that the
 * profiling side can tell them from ncu's own messages. Not listed in the help: it is the
 * profiler's business, not the user's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "recipes/recipe.h"
#include "runtime/cuda_once.h"
#include "search/candidate.h"
#include "search/profile.h"

static const char *profile_help =
  "usage: krewrite profile PROBLEM.lua [--recipe R.lua | --candidate F.cu] [options]\n"
  "\n"
  "Runs the candidate's launches once, at the spec's benchmark sizes, under Nsight Compute (ncu,\n"
  "with --clock-control none, so clocks run as they do when timed) and classifies the longest\n"
  "launch by its speed of light: memory-bandwidth-bound (memory throughput >= 60% of peak and >=\n"
  "compute), compute-bound (compute >= 60% and above memory) or latency-bound (neither near its\n"
  "peak). Prints the class and the metrics that matter for it: memory SOL, DRAM/L2/L1 throughput\n"
  "and bytes; compute SOL, issue slots, FMA and tensor pipes, registers; occupancy, its limits\n"
  "and the warp stalls. Without --recipe or --candidate the problem's own kernel is profiled.\n"
  "  --recipe R.lua      the candidate is R.lua applied to the problem's source\n"
  "  --candidate F.cu    the candidate is F.cu\n"
  "  --arch sm_XX        nvcc target (default: the GPU's)\n"
  "  --ncu PATH          the ncu to run (default: ncu in PATH, then /usr/local/cuda/bin/ncu)\n"
  "  --timeout S         time limit for the whole ncu run in seconds (default 600)\n"
  "  --json              print the profile as JSON (as run.json records it)\n"
  "  -D name=value       a recipe parameter\n"
  KR_CLI_BUILD_HELP
  "Exit status: 0 profiled, 1 the candidate failed to build or run, 2 usage, no ncu, no GPU, or\n"
  "ncu could not profile (e.g. no permission for the performance counters).\n";

typedef struct ProfileArgs {
  const char *problem;
  bool json, launch_once;
  KrProfileOptions opt;
  KrRecipeOptions ropt;
  KrBuildFlags build;
} ProfileArgs;

static int parse_profile_args(int argc, char **argv, ProfileArgs *p, KrArena *a, KrDiags *d) {
  kr_recipe_options_init(&p->ropt, a);
  p->ropt.print = kr_cli_recipe_print;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int bflag = kr_cli_build_flag(argc, argv, &i, &p->build, a, d);
    if (bflag < 0) return KR_EXIT_USAGE;
    if (bflag) continue;
    if (strcmp(s, "--json") == 0) p->json = true;
    else if (strcmp(s, "--launch-once") == 0) p->launch_once = true;
    else if (strcmp(s, "--recipe") == 0 && val) p->opt.recipe = argv[++i];
    else if (strcmp(s, "--candidate") == 0 && val) p->opt.candidate = argv[++i];
    else if (strcmp(s, "--arch") == 0 && val) p->opt.arch = argv[++i];
    else if (strcmp(s, "--ncu") == 0 && val) p->opt.ncu = argv[++i];
    else if (strcmp(s, "--timeout") == 0 && val && atof(val) > 0) p->opt.timeout_s = atof(argv[++i]);
    else if (strcmp(s, "-D") == 0 && val) {
      if (kr_recipe_define(&p->ropt, a, argv[++i], d) != KR_OK) return KR_EXIT_USAGE;
    } else if (s[0] == '-' || p->problem) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                  "profile: unexpected '%s' (see krewrite profile --help)", s);
      return KR_EXIT_USAGE;
    } else p->problem = s;
  }
  if (!p->problem || (p->opt.recipe && p->opt.candidate)) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "profile needs PROBLEM.lua and at most one of --recipe or --candidate");
    return KR_EXIT_USAGE;
  }
  p->opt.recipe_opts = &p->ropt;
  return KR_EXIT_OK;
}

/* The hidden mode ncu runs. stdout is pointed at stderr first: ncu prints its CSV on its own
 * stdout, which it shares with this process, and a kernel's printf must not land in the table. */
static int launch_once(ProfileArgs *p, KrArena *a, KrDiags *d) {
  fflush(stdout);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  KrSpec *spec;
  int rc = KR_EXIT_OK;
  KrRecipeRun *run = NULL;
  if (kr_spec_load_with(p->problem, &p->build, a, &spec, d) != KR_OK ||
      (p->opt.recipe && kr_candidate_from_recipe(spec, p->opt.recipe, &p->ropt, a, &run, d) != KR_OK))
    rc = KR_EXIT_INPUT;
  KrLaunchOnceOptions lo = {run, p->opt.candidate, p->opt.arch};
  if (rc == KR_EXIT_OK && kr_cuda_launch_once(spec, &lo, a, d) != KR_OK) rc = KR_EXIT_INPUT;
  if (run) kr_recipe_run_free(run);
  for (size_t i = 0; i < d->items.len; i++) {
    const KrDiag *g = &d->items.data[i];
    if (g->severity != KR_DIAG_ERROR) continue;
    KrBuf b = {0};
    kr_diag_format(g, &b);
    char *nl = b.data ? strchr(b.data, '\n') : NULL;  /* the message line, without the caret */
    if (nl) *nl = 0;
    fprintf(stderr, "%s%s\n", KR_LAUNCH_ONCE_PREFIX, g->path ? b.data : g->message);
    kr_buf_free(&b);
  }
  return rc;
}

static void print_profile(const KrSpec *spec, const KrProfile *p, bool json, KrBuf *b) {
  if (json) {
    kr_buf_printf(b, "%s\n", p->json);
    return;
  }
  kr_buf_printf(b, "profile %s: %s\n%s", spec->name, p->candidate ? p->candidate : spec->source,
                p->text);
  if (p->launches.len < 2) return;
  kr_buf_puts(b, "launches:\n");
  for (size_t i = 0; i < p->launches.len; i++) {
    const KrProfileLaunch *l = &p->launches.data[i];
    kr_buf_printf(b, "  %zu. %s grid %s block %s: ", i + 1, l->kernel, l->grid, l->block);
    if (isnan(l->duration_ms)) kr_buf_puts(b, "duration not reported\n");
    else kr_buf_printf(b, "%.4g ms\n", l->duration_ms);
  }
}

int kr_cmd_profile(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(profile_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  ProfileArgs p = {0};
  int rc = parse_profile_args(argc, argv, &p, a, d);
  const char *const files[] = {p.problem, p.opt.recipe, p.opt.candidate};
  const char *const what[] = {"problem spec", "recipe", "candidate"};
  if (rc == KR_EXIT_OK && !kr_cli_files_readable(3, files, what, d)) rc = KR_EXIT_USAGE;
  if (rc == KR_EXIT_OK && p.launch_once) {
    rc = launch_once(&p, a, d);
    kr_diags_free(d);
    kr_arena_free(a);
    return rc;
  }
  KrSpec *spec = NULL;
  if (rc == KR_EXIT_OK && kr_spec_load_with(p.problem, &p.build, a, &spec, d) != KR_OK) rc = KR_EXIT_INPUT;
  if (rc == KR_EXIT_OK) {
    KrProfile *prof;
    if (kr_profile_run(spec, &p.opt, a, &prof, d) != KR_OK) {
      rc = prof->failure == KR_PROFILE_CANDIDATE ? KR_EXIT_INPUT : KR_EXIT_USAGE;
    } else {
      KrBuf b = {0};
      print_profile(spec, prof, p.json, &b);
      rc = kr_cli_emit(NULL, b.data ? b.data : "", b.len, d);
      kr_buf_free(&b);
    }
  }
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(a);
  return rc;
}
