/* cli/cmd_verify.c: `krewrite verify problem.lua [--recipe R.lua | --candidate FILE.cu]`. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "recipes/recipe.h"
#include "runtime/cuda.h"
#include "runtime/verify.h"
#include "search/candidate.h"

static const char *verify_help =
  "usage: krewrite verify PROBLEM.lua [--recipe R.lua | --candidate FILE.cu] [options]\n"
  "\n"
  "Checks that a candidate computes what the problem's original kernel (the reference) computes:\n"
  "for every test size and several seeds, both run on the same fresh random inputs, outputs are\n"
  "poisoned with NaN first, every element must be written, NaN never passes, and the relative L2\n"
  "error must be within the tolerance (strict fp32 unless a precision-lowering pass declared\n"
  "more). Inputs must come back unmodified unless the spec declares them inout.\n"
  "  --recipe R.lua      the candidate is R.lua applied to the problem's source\n"
  "  --candidate F.cu    the candidate is F.cu (e.g. a kernel written by hand or by an LLM)\n"
  "  --device cpu|cuda   where kernels run: cpu, the emulator (default), or cuda, the GPU\n"
  "                      (libcuda.so.1 loaded at run time; kernels built with nvcc)\n"
  "  --arch sm_XX        nvcc target with --device cuda (default: the GPU's)\n"
  "  --seeds N           random input sets per test size (default: the spec's, else 3)\n"
  "  --max-cases N       only the first N test sizes (quick runs, e.g. under compute-sanitizer)\n"
  "  --no-shuffle        run threads in order (default: a shuffled order, to expose races)\n"
  "  --race-check        check races on global memory for every kernel on the emulator\n"
  "                      (default: for a .cu that uses shared memory or atomics)\n"
  "  --timeout S         time limit per launch in seconds (default 20); on the emulator a launch\n"
  "                      predicted to take over three times that (loops to compile-time bounds)\n"
  "                      gets a warning before the cases run, which still run\n"
  "  --extra-budget S    seconds for sizes beyond the test list and, on the GPU, the benchmark\n"
  "                      size (default 0.5; 0 turns them off)\n"
  "  --offset-cases      also run, for every buffer the launches pass to a pointer parameter, a\n"
  "                      case with it one element past an aligned address (as a program's x + 1),\n"
  "                      on both sides, at the largest test size: a candidate that reads x as\n"
  "                      float4 without checking the alignment fails there. With --recipe, the\n"
  "                      pointers a pass reads or writes as vectors get this case without it\n"
  "  --json              print the report as JSON\n"
  "  -D name=value       a recipe parameter (with --recipe)\n"
  KR_CLI_BUILD_HELP
  "Exit status: 0 every case passed, 1 a case failed or the candidate did not build, 2 usage or a\n"
  "missing file.\n";

typedef struct VerifyArgs {
  const char *problem, *device, *recipe;
  bool json;
  KrVerifyOptions opt;
  KrRecipeOptions ropt;
  KrBuildFlags build;
} VerifyArgs;

/* A warning of the verification's that should not wait for the report (a launch predicted to run
 * past its time limit): printed at once, before the cases run. */
static void print_warning(void *ctx, const KrDiag *w) {
  (void)ctx;
  KrBuf b = {0};
  kr_diag_format(w, &b);
  if (b.len) fputs(b.data, stderr);
  fflush(stderr);
  kr_buf_free(&b);
}

static int parse_verify_args(int argc, char **argv, VerifyArgs *v, KrArena *a, KrDiags *d) {
  v->opt.shuffle = true;
  v->opt.timeout_s = 20;
  v->device = "cpu";
  kr_recipe_options_init(&v->ropt, a);
  v->ropt.print = kr_cli_recipe_print;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int bflag = kr_cli_build_flag(argc, argv, &i, &v->build, a, d);
    if (bflag < 0) return KR_EXIT_USAGE;
    if (bflag) continue;
    if (strcmp(s, "--json") == 0) v->json = true;
    else if (strcmp(s, "--no-shuffle") == 0) v->opt.shuffle = false;
    else if (strcmp(s, "--race-check") == 0) v->opt.race_check = true;
    else if (strcmp(s, "--offset-cases") == 0) v->opt.offset_cases = true;
    else if (strcmp(s, "--recipe") == 0 && val) v->recipe = argv[++i];
    else if (strcmp(s, "--candidate") == 0 && val) v->opt.candidate = argv[++i];
    else if (strcmp(s, "--device") == 0 && val) v->device = argv[++i];
    else if (strcmp(s, "--arch") == 0 && val) v->opt.arch = argv[++i];
    else if (strcmp(s, "--max-cases") == 0 && val && atoi(val) > 0) v->opt.max_cases = (uint32_t)atoi(argv[++i]);
    else if (strcmp(s, "--seeds") == 0 && val && atoi(val) > 0) v->opt.seeds = (uint32_t)atoi(argv[++i]);
    else if (strcmp(s, "--timeout") == 0 && val && atof(val) > 0) v->opt.timeout_s = atof(argv[++i]);
    else if (strcmp(s, "--extra-budget") == 0 && val && (atof(val) > 0 || strcmp(val, "0") == 0)) {
      double b = atof(argv[++i]);
      v->opt.extra_budget_s = b > 0 ? b : -1;   /* 0 on the command line: none */
    }
    else if (strcmp(s, "-D") == 0 && val) {
      if (kr_recipe_define(&v->ropt, a, argv[++i], d) != KR_OK) return KR_EXIT_USAGE;
    } else if (s[0] == '-') {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "verify: unknown option or missing value: '%s'", s);
      return KR_EXIT_USAGE;
    } else if (!v->problem) v->problem = s;
    else {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "verify: unexpected argument '%s'", s);
      return KR_EXIT_USAGE;
    }
  }
  if (!v->problem || (!v->recipe == !v->opt.candidate)) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "verify needs PROBLEM.lua and exactly one of --recipe or --candidate");
    return KR_EXIT_USAGE;
  }
  if (strcmp(v->device, "cuda") == 0) {
    char gpu[256];
    int major = 0, minor = 0;
    if (kr_cuda_probe(gpu, sizeof gpu, &major, &minor, d) != KR_OK) return KR_EXIT_USAGE;
    v->opt.device = KR_DEVICE_CUDA;
    if (!v->opt.arch) v->opt.arch = kr_arena_printf(a, "sm_%d%d", major, minor);
  } else if (strcmp(v->device, "cpu") != 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "--device must be cpu or cuda, got '%s'", v->device);
    return KR_EXIT_USAGE;
  }
  v->opt.warn = print_warning;
  return KR_EXIT_OK;
}

int kr_cmd_verify(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(verify_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  VerifyArgs v = {0};
  KrSpec *spec = NULL;
  int rc = parse_verify_args(argc, argv, &v, a, d);
  const char *const files[] = {v.problem, v.recipe, v.opt.candidate};
  const char *const what[] = {"problem spec", "recipe", "candidate"};
  if (rc == KR_EXIT_OK && !kr_cli_files_readable(3, files, what, d)) rc = KR_EXIT_USAGE;
  if (rc == KR_EXIT_OK && kr_spec_load_with(v.problem, &v.build, a, &spec, d) != KR_OK) rc = KR_EXIT_INPUT;
  KrRecipeRun *run = NULL;   /* --recipe: the candidate, made once */
  if (rc == KR_EXIT_OK && v.recipe && kr_candidate_from_recipe(spec, v.recipe, &v.ropt, a, &run, d) != KR_OK)
    rc = KR_EXIT_INPUT;
  v.opt.run = run, v.opt.passes = SIZE_MAX;
  if (rc == KR_EXIT_OK) {
    KrVerifyReport *rep;
    if (kr_verify(spec, &v.opt, a, &rep, d) != KR_OK) rc = KR_EXIT_INPUT;
    KrBuf b = {0};
    if (v.json) kr_verify_json(rep, &b);
    else kr_verify_text(rep, &b);
    if (kr_cli_emit(NULL, b.data ? b.data : "", b.len, d) != KR_EXIT_OK && rc == KR_EXIT_OK)
      rc = KR_EXIT_USAGE;
    kr_buf_free(&b);
  }
  if (run) kr_recipe_run_free(run);
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(a);
  return rc;
}
