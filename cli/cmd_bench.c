/* cli/cmd_bench.c: `krewrite bench problem.lua (--recipe R.lua | --candidate F.cu)`. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "recipes/recipe.h"
#include "runtime/bench.h"

static const char *bench_help =
  "usage: krewrite bench PROBLEM.lua (--recipe R.lua | --candidate F.cu) [options]\n"
  "\n"
  "Times the candidate against the problem's original kernel on the GPU, at the spec's benchmark\n"
  "sizes. Both are built with nvcc, run once on the same inputs (their outputs must agree within\n"
  "the tolerance, or nothing is timed), then timed alternately in one process: CUDA events around\n"
  "the launches only, warm-up, at least 50 repetitions and 1 s, the L2 flushed before each\n"
  "repetition, three input sets rotated. Reports median, min and spread, the speedup, achieved\n"
  "bandwidth and FLOP rate, and the fraction of the floor (spec bytes and flops over the\n"
  "H200's measured 4.27 TB/s and 51 TFLOP/s).\n"
  "  --recipe R.lua      the candidate is R.lua applied to the problem's source\n"
  "  --candidate F.cu    the candidate is F.cu\n"
  "  --json              print the report as JSON\n"
  "  --dump DIR          write the inputs and both outputs to DIR (for bench/torch_seed.py)\n"
  "  --arch sm_XX        nvcc target (default: the GPU's)\n"
  "  --reps N            minimum repetitions (default 50)\n"
  "  --min-seconds S     minimum total timed seconds (default 1)\n"
  "  -D name=value       a recipe parameter\n"
  "Exit status: 0 timed, 1 the candidate failed to build, run or agree, 2 usage, a missing file or no GPU.\n";

int kr_cmd_bench(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(bench_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrRecipeOptions ropt;
  kr_recipe_options_init(&ropt, a);
  ropt.print = kr_cli_recipe_print;
  KrBenchRunOptions o = {.recipe_opts = &ropt,
                         .timing = {.warmup = 5, .min_reps = 50, .min_seconds = 1.0,
                                    .input_sets = 3, .l2_flush_bytes = 256u << 20, .timeout_s = 600}};
  const char *problem = NULL;
  bool json = false;
  int rc = KR_EXIT_OK;
  for (int i = 1; i < argc && rc == KR_EXIT_OK; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(s, "--json") == 0) json = true;
    else if (strcmp(s, "--recipe") == 0 && val) o.recipe = argv[++i];
    else if (strcmp(s, "--candidate") == 0 && val) o.candidate = argv[++i];
    else if (strcmp(s, "--dump") == 0 && val) o.dump_dir = argv[++i];
    else if (strcmp(s, "--arch") == 0 && val) o.arch = argv[++i];
    else if (strcmp(s, "--reps") == 0 && val && atoi(val) > 0) o.timing.min_reps = atoi(argv[++i]);
    else if (strcmp(s, "--min-seconds") == 0 && val && atof(val) >= 0) o.timing.min_seconds = atof(argv[++i]);
    else if (strcmp(s, "-D") == 0 && val) {
      if (kr_recipe_define(&ropt, a, argv[++i], d) != KR_OK) rc = KR_EXIT_USAGE;
    } else if (s[0] == '-' || problem) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "bench: unexpected '%s' (see krewrite bench --help)", s);
      rc = KR_EXIT_USAGE;
    } else problem = s;
  }
  if (rc == KR_EXIT_OK && (!problem || !o.recipe == !o.candidate)) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "bench needs PROBLEM.lua and exactly one of --recipe or --candidate");
    rc = KR_EXIT_USAGE;
  }
  char gpu[256];
  int major = 0, minor = 0;
  const char *const files[] = {problem, o.recipe, o.candidate};
  const char *const what[] = {"problem spec", "recipe", "candidate"};
  if (rc == KR_EXIT_OK && !kr_cli_files_readable(3, files, what, d)) rc = KR_EXIT_USAGE;
  if (rc == KR_EXIT_OK && kr_cuda_probe(gpu, sizeof gpu, &major, &minor, d) != KR_OK) rc = KR_EXIT_USAGE;
  if (rc == KR_EXIT_OK && !o.arch) o.arch = kr_arena_printf(a, "sm_%d%d", major, minor);
  KrSpec *spec = NULL;
  if (rc == KR_EXIT_OK && kr_spec_load(problem, a, &spec, d) != KR_OK) rc = KR_EXIT_INPUT;
  if (rc == KR_EXIT_OK) {
    KrBenchReport *rep;
    if (kr_bench(spec, &o, a, &rep, d) != KR_OK) rc = KR_EXIT_INPUT;
    rep->gpu = gpu;
    KrBuf b = {0};
    if (json) kr_bench_json(rep, &b);
    else kr_bench_text(rep, &b);
    if (kr_cli_emit(NULL, b.data ? b.data : "", b.len, d) != KR_EXIT_OK && rc == KR_EXIT_OK)
      rc = KR_EXIT_USAGE;
    kr_buf_free(&b);
  }
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(a);
  return rc;
}
