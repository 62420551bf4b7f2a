/* cli/cmd_bench.c: `krewrite bench problem.lua (--recipe R.lua | --candidate F.cu)`, and with
 * --steps every prefix of the recipe (runtime/bench.h). */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "recipes/recipe.h"
#include "runtime/bench.h"
#include "search/candidate.h"

static const char *bench_help =
  "usage: krewrite bench PROBLEM.lua (--recipe R.lua | --candidate F.cu) [options]\n"
  "       krewrite bench PROBLEM.lua --recipe R.lua --steps [options]\n"
  "\n"
  "Times the candidate against the problem's original kernel on the GPU, at the spec's benchmark\n"
  "sizes. Both are built with nvcc, run once on the same inputs (their outputs must agree within\n"
  "the tolerance, or nothing is timed), then timed alternately in one process: CUDA events around\n"
  "the launches only (with a spec's entry, around its call), warm-up, at least 50 repetitions\n"
  "and 1 s, the L2 flushed before each repetition, three input sets rotated. Reports median,\n"
  "min and spread, the speedup, achieved bandwidth and FLOP rate, and the fraction of the floor\n"
  "(spec bytes and flops over the H200's measured 4.27 TB/s and 51 TFLOP/s).\n"
  "\n"
  "With --steps, every prefix of the recipe: the original (step 0), then the text after each pass\n"
  "the recipe applied, in order (its audit record; the recipe runs once). Each step is verified\n"
  "against the original as `krewrite verify` verifies a candidate; on the GPU, the original and\n"
  "every step that verified (and agrees at the benchmark size) are then timed interleaved in one\n"
  "process. The table gives each step's pass and arguments, verification, median, speed against\n"
  "the original and against the previous timed step (> 1 is faster); a step slower than the one\n"
  "before it by more than 1% is marked REGRESSION. Without a GPU the steps are verified on the\n"
  "emulator and each is \"not timed: no GPU\".\n"
  "  --recipe R.lua      the candidate is R.lua applied to the problem's source\n"
  "  --candidate F.cu    the candidate is F.cu\n"
  "  --steps             time every prefix of --recipe (see above)\n"
  "  --device cpu|cuda   with --steps: where the steps are verified (default cpu, the emulator)\n"
  "  --json              print the report as JSON (with --steps, what `krewrite report\n"
  "                      PROBLEM.lua --recipe R.lua --timings FILE` reads)\n"
  "  --dump DIR          write the inputs and both outputs to DIR (for bench/torch_seed.py)\n"
  "  --arch sm_XX        nvcc target (default: the GPU's)\n"
  "  --reps N            minimum repetitions (default 50)\n"
  "  --min-seconds S     minimum total timed seconds (default 1)\n"
  "  -D name=value       a recipe parameter\n"
  KR_CLI_BUILD_HELP
  "Exit status: 0 timed, 1 the candidate failed to build, run or agree, 2 usage, a missing file or no GPU.\n"
  "With --steps: 0 every step verified and, with a GPU, was timed (without a GPU: verified); 1 the\n"
  "recipe failed, or a step failed verification or could not be timed; 2 usage or a missing file.\n";

typedef struct BenchArgs {
  const char *problem, *device, *recipe;
  bool json, steps;
  KrBenchRunOptions o;
  KrRecipeOptions ropt;
  KrBuildFlags build;
} BenchArgs;

static int usage(KrDiags *d, const char *msg) {
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "bench: %s (see krewrite bench --help)", msg);
  return KR_EXIT_USAGE;
}

static int parse_bench_args(int argc, char **argv, BenchArgs *v, KrArena *a, KrDiags *d) {
  KrBenchRunOptions *o = &v->o;
  kr_recipe_options_init(&v->ropt, a);
  v->ropt.print = kr_cli_recipe_print;
  *o = (KrBenchRunOptions){.timing = kr_bench_options_default()};
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int bflag = kr_cli_build_flag(argc, argv, &i, &v->build, a, d);
    if (bflag < 0) return KR_EXIT_USAGE;
    if (bflag) continue;
    if (strcmp(s, "--json") == 0) v->json = true;
    else if (strcmp(s, "--steps") == 0) v->steps = true;
    else if (strcmp(s, "--device") == 0 && val) v->device = argv[++i];
    else if (strcmp(s, "--recipe") == 0 && val) v->recipe = argv[++i];
    else if (strcmp(s, "--candidate") == 0 && val) o->candidate = argv[++i];
    else if (strcmp(s, "--dump") == 0 && val) o->dump_dir = argv[++i];
    else if (strcmp(s, "--arch") == 0 && val) o->arch = argv[++i];
    else if (strcmp(s, "--reps") == 0 && val && atoi(val) > 0) o->timing.min_reps = atoi(argv[++i]);
    else if (strcmp(s, "--min-seconds") == 0 && val && atof(val) >= 0) o->timing.min_seconds = atof(argv[++i]);
    else if (strcmp(s, "-D") == 0 && val) {
      if (kr_recipe_define(&v->ropt, a, argv[++i], d) != KR_OK) return KR_EXIT_USAGE;
    } else if (s[0] == '-' || v->problem) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "bench: unexpected '%s' (see krewrite bench --help)", s);
      return KR_EXIT_USAGE;
    } else v->problem = s;
  }
  if (v->steps && (!v->problem || !v->recipe || o->candidate))
    return usage(d, "--steps needs PROBLEM.lua and --recipe R.lua (the steps are the recipe's passes), "
                    "not --candidate");
  if (!v->problem || !v->recipe == !o->candidate)
    return usage(d, "needs PROBLEM.lua and exactly one of --recipe or --candidate");
  if (v->steps && o->dump_dir) return usage(d, "--dump is for one candidate, not --steps");
  if (v->device && !v->steps)
    return usage(d, "--device goes with --steps (where the steps are verified); bench alone runs on the GPU");
  if (v->device && strcmp(v->device, "cpu") != 0 && strcmp(v->device, "cuda") != 0)
    return usage(d, kr_arena_printf(a, "--device must be cpu or cuda, got '%s'", v->device));
  const char *const files[] = {v->problem, v->recipe, o->candidate};
  const char *const what[] = {"problem spec", "recipe", "candidate"};
  return kr_cli_files_readable(3, files, what, d) ? KR_EXIT_OK : KR_EXIT_USAGE;
}

/* Prints the report and returns rc, or KR_EXIT_USAGE when stdout cannot take it. */
static int print(KrBuf *b, int rc, KrDiags *d) {
  if (kr_cli_emit(NULL, b->data ? b->data : "", b->len, d) != KR_EXIT_OK && rc == KR_EXIT_OK) rc = KR_EXIT_USAGE;
  kr_buf_free(b);
  return rc;
}

/* bench --steps: without a GPU the steps are still verified, on the emulator. */
static int run_steps(BenchArgs *v, const KrSpec *spec, KrArena *a, KrDiags *d) {
  char gpu[256];
  int major = 0, minor = 0;
  KrDiags *probe = kr_diags_new();
  KrStepsOptions so = {.run = v->o.run, .arch = v->o.arch, .timing = v->o.timing,
                       .device = v->device && strcmp(v->device, "cuda") == 0 ? KR_DEVICE_CUDA : KR_DEVICE_CPU};
  so.gpu = kr_cuda_probe(gpu, sizeof gpu, &major, &minor, probe) == KR_OK;
  if (!so.gpu) so.no_gpu = kr_arena_strdup(a, probe->items.len ? probe->items.data[0].message : "no GPU");
  kr_diags_free(probe);
  if (!so.gpu && so.device == KR_DEVICE_CUDA) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "bench --steps --device cuda: %s", so.no_gpu);
    return KR_EXIT_USAGE;
  }
  if (so.gpu && !so.arch) so.arch = kr_arena_printf(a, "sm_%d%d", major, minor);
  KrStepsReport *rep;
  int rc = kr_bench_steps(spec, &so, a, &rep, d) == KR_OK ? KR_EXIT_OK : KR_EXIT_INPUT;
  rep->gpu = so.gpu ? gpu : NULL;
  rep->arch = so.arch;
  KrBuf b = {0};
  if (v->json) kr_bench_steps_json(rep, &b);
  else kr_bench_steps_text(rep, &b);
  return print(&b, rc, d);
}

int kr_cmd_bench(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(bench_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  BenchArgs v = {0};
  KrBenchRunOptions *o = &v.o;
  int rc = parse_bench_args(argc, argv, &v, a, d);
  KrSpec *spec = NULL;
  char gpu[256];
  int major = 0, minor = 0;
  if (rc == KR_EXIT_OK && !v.steps && kr_cuda_probe(gpu, sizeof gpu, &major, &minor, d) != KR_OK) rc = KR_EXIT_USAGE;
  if (rc == KR_EXIT_OK && !v.steps && !o->arch) o->arch = kr_arena_printf(a, "sm_%d%d", major, minor);
  if (rc == KR_EXIT_OK && kr_spec_load_with(v.problem, &v.build, a, &spec, d) != KR_OK) rc = KR_EXIT_INPUT;
  KrRecipeRun *run = NULL;   /* --recipe: the candidate (or the steps' run), made once */
  if (rc == KR_EXIT_OK && v.recipe && kr_candidate_from_recipe(spec, v.recipe, &v.ropt, a, &run, d) != KR_OK)
    rc = KR_EXIT_INPUT;
  o->run = run, o->passes = SIZE_MAX;
  if (rc == KR_EXIT_OK && v.steps) rc = run_steps(&v, spec, a, d);
  else if (rc == KR_EXIT_OK) {
    KrBenchReport *rep;
    if (kr_bench(spec, o, a, &rep, d) != KR_OK) rc = KR_EXIT_INPUT;
    rep->gpu = gpu;
    KrBuf b = {0};
    if (v.json) kr_bench_json(rep, &b);
    else kr_bench_text(rep, &b);
    rc = print(&b, rc, d);
  }
  if (run) kr_recipe_run_free(run);
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(a);
  return rc;
}
