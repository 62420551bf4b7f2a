/* cli/cmd_optimize.c: `krewrite optimize PROBLEM.lua`: the built-in search (search/optimize.h).
 * Flags are checked before anything runs; progress goes to stderr, the summary to stdout. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/proc.h"
#include "cli/cli.h"
#include "runtime/cuda.h"
#include "search/llm.h"
#include "search/optimize.h"
#include "search/profile.h"

static const char *optimize_help =
  "usage: krewrite optimize PROBLEM.lua [options]\n"
  "\n"
  "Searches for a faster kernel: rounds of ideas from a proposer, each idea a one-line reason and\n"
  "a recipe (one more pass on one kernel); each idea branches into up to B parameterisations\n"
  "(vectorize width 4/2, unroll factor 4/2/full, index_precompute min_ops 1/2). A contraction\n"
  "not yet scheduled gets one grid of whole schedules (block, k and thread tiles, stages), a row\n"
  "reduction one of reduction schedules (block_reduce, warp_reduce and split_rows at several\n"
  "thread counts and parts, with online_softmax / welford first where they apply): each\n"
  "is compiled with nvcc first, refused when it spills or breaks sm_90's limits, and ranked by a\n"
  "model; only the B best go on (without nvcc: ranked by the model alone, with a note). Every\n"
  "candidate is applied, verified against the original (as `krewrite verify`) and, when a GPU is present,\n"
  "timed (as `krewrite bench`, one candidate at a time); the K best seed the next round. The\n"
  "search stops at the round limit, the budget, a round with no gain, or Ctrl-C (the trajectory\n"
  "written so far is kept). Without a GPU, candidates are verified on the CPU emulator and\n"
  "listed, and none can be timed: the best is then the deepest verified recipe.\n"
  "  --proposer heuristic  the built-in proposer (default): applicable passes ordered by the\n"
  "                        kernel's bottleneck (flops/bytes of the spec)\n"
  "  --proposer llm        ideas from a chat model (OpenAI-compatible or Anthropic endpoint),\n"
  "                        configured by environment: KREWRITE_LLM_URL (the full endpoint),\n"
  "                        KREWRITE_LLM_MODEL, the key in KREWRITE_LLM_API_KEY (else\n"
  "                        OPENAI_API_KEY / ANTHROPIC_API_KEY; never logged or written),\n"
  "                        KREWRITE_LLM_RETRIES (retries per request, default 4),\n"
  "                        KREWRITE_LLM_TIMEOUT (seconds per attempt, default 300). The prompt\n"
  "                        holds the kernel, its model, the pass catalogue, the profile and the\n"
  "                        history; a bad reply is fed back to the model (at most 2 times a\n"
  "                        round). Tokens and cost (when the server reports it) go in run.json\n"
  "  --dry-run             print round 1's prompt (llm: no request is made) or the ideas the\n"
  "                        heuristic would try, and exit\n"
  "  --rounds R            at most R rounds (default 3)\n"
  "  --branch B            parameterisations per idea, and schedules of a grid kept after\n"
  "                        the resource pruning (default 2)\n"
  "  --keep K              candidates seeding the next round (default 2)\n"
  "  --jobs J              build (nvcc, or the emulator's compiler) up to J candidates at once\n"
  "                        (default: the number of CPUs, at most 8); verification and timing\n"
  "                        run one candidate at a time\n"
  "  --device cpu|cuda     where candidates are verified (default cpu, the emulator)\n"
  "  --arch sm_XX          nvcc target on the GPU (default: the GPU's)\n"
  "  --budget-minutes M    wall-clock budget (M > 0; default: none): a candidate starts only\n"
  "                        when, at the mean time of those before it, it ends within M\n"
  "                        minutes; parallel builds are stopped at M\n"
  "  --pytorch-ms MS       PyTorch's median time on the same problem (bench/torch_seed.py), recorded\n"
  "                        in run.json so the report sets the best candidate beside it\n"
  "  --seed N              proposer seed (default 1); the same seed gives the same ideas\n"
  "  --allow-lowering      also propose precision-lowering passes (fast_math)\n"
  KR_CLI_BUILD_HELP
  "  --profile             profile each round's seed with Nsight Compute (ncu, run with\n"
  "                        --clock-control none; needs a GPU): classified compute-bound,\n"
  "                        memory-bandwidth-bound or latency-bound, that class's metrics go to\n"
  "                        the proposer and into run.json, and the heuristic orders its ideas by\n"
  "                        the class (see krewrite profile --help)\n"
  "  --ncu PATH            the ncu to use (implies --profile; default: PATH, then\n"
  "                        /usr/local/cuda/bin/ncu)\n"
  "  --seeds N             random input sets per test size when verifying (default: the spec's)\n"
  "  --timeout S           time limit per launch in seconds (default 20)\n"
  "  --out DIR             where results go (default optimize-out; created if missing)\n"
  "Files in DIR: cand-N.lua (each candidate's recipe), run.json (the trajectory: every candidate\n"
  "with idea, reason, recipe, parameters, status, verification, times, speedup and diff; the\n"
  "best and its apply log under best_log; each candidate's compile report with its ptxas resources;\n"
  "rewritten after every candidate), best.json (the best candidate's apply log: `krewrite replay\n"
  "DIR/best.json` rebuilds the best kernel). `krewrite report DIR/run.json` draws it as a page.\n"
  "Progress: a line per candidate on stderr, and a bar for the round when stderr is a terminal.\n"
  "Exit status: 0 at least one candidate verified, 1 none did (or the problem had errors),\n"
  "2 usage or environment trouble (bad flags, an output folder that cannot be written).\n";

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

/* Progress on stderr: a line per candidate; on a terminal, a bar under them that each line
 * and tick redraws. */
typedef struct Progress {
  bool tty, bar_shown;
  int round;
  size_t done, total;
  const char *phase;
  double t0;
} Progress;

static void draw_bar(Progress *p) {
  if (!p->tty || !p->phase || !p->total) return;
  enum { WIDTH = 30 };
  size_t fill = p->done * WIDTH / p->total;
  char bar[WIDTH + 1];
  for (size_t i = 0; i < WIDTH; i++) bar[i] = i < fill ? '#' : '.';
  bar[WIDTH] = '\0';
  fprintf(stderr, "\r\033[Kround %d [%s] %zu/%zu %s, %.0f s", p->round, bar, p->done, p->total,
          p->phase, kr_now_s() - p->t0);
  p->bar_shown = true;
}

static void clear_bar(Progress *p) {
  if (p->bar_shown) fputs("\r\033[K", stderr);
  p->bar_shown = false;
}

static void print_progress(void *ctx, const char *line) {
  Progress *p = ctx;
  clear_bar(p);
  fprintf(stderr, "%s\n", line);
  draw_bar(p);
}

static void print_tick(void *ctx, int round, size_t done, size_t total, const char *phase) {
  Progress *p = ctx;
  p->round = round, p->done = done, p->total = total, p->phase = phase;
  clear_bar(p);
  draw_bar(p);
  fflush(stderr);
}

static int default_jobs(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

static bool positive_int(const char *s, int *out) {
  char *end;
  long v = s ? strtol(s, &end, 10) : 0;
  if (!s || !*s || *end || v <= 0 || v > 1000000) return false;
  *out = (int)v;
  return true;
}

static int usage(KrDiags *d, const char *msg, const char *arg) {
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "optimize: %s%s%s%s", msg, arg ? " '" : "",
              arg ? arg : "", arg ? "'" : "");
  return KR_EXIT_USAGE;
}

static int parse_number_flag(const char *s, const char *val, KrOptimizeOptions *o, KrDiags *d) {
  int n;
  if (!positive_int(val, &n))
    return usage(d, kr_arena_printf(d->arena, "%s needs a positive integer, got", s), val ? val : "");
  if (strcmp(s, "--rounds") == 0) o->rounds = n;
  else if (strcmp(s, "--branch") == 0) o->branch = n;
  else if (strcmp(s, "--keep") == 0) o->keep = n;
  else if (strcmp(s, "--jobs") == 0) o->jobs = n;
  else if (strcmp(s, "--seeds") == 0) o->verify_seeds = (uint32_t)n;
  return KR_EXIT_OK;
}

static int parse_args(int argc, char **argv, KrOptimizeOptions *o, const char **device,
                      KrBuildFlags *build, KrDiags *d) {
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = KR_EXIT_OK;
    int bflag = kr_cli_build_flag(argc, argv, &i, build, d->arena, d);
    if (bflag < 0) return KR_EXIT_USAGE;
    if (bflag) continue;
    if (strcmp(s, "--allow-lowering") == 0) o->allow_lowering = true;
    else if (strcmp(s, "--dry-run") == 0) o->dry_run = true;
    else if (strcmp(s, "--profile") == 0) o->profile = true;
    else if (strcmp(s, "--ncu") == 0 && val) o->ncu = argv[++i], o->profile = true;
    else if (!strcmp(s, "--rounds") || !strcmp(s, "--branch") || !strcmp(s, "--keep") ||
             !strcmp(s, "--jobs") || !strcmp(s, "--seeds"))
      rc = parse_number_flag(s, val, o, d), i++;
    else if (strcmp(s, "--proposer") == 0 && val) {
      if (strcmp(val, "heuristic") != 0 && strcmp(val, "llm") != 0)
        return usage(d, "unknown proposer (heuristic or llm):", val);
      o->proposer = argv[++i];
    } else if (strcmp(s, "--device") == 0 && val) *device = argv[++i];
    else if (strcmp(s, "--arch") == 0 && val) o->arch = argv[++i];
    else if (strcmp(s, "--out") == 0 && val) o->out_dir = argv[++i];
    else if (strcmp(s, "--seed") == 0 && val) o->seed = strtoull(argv[++i], NULL, 10);
    else if (strcmp(s, "--timeout") == 0 && val && atof(val) > 0) o->timeout_s = atof(argv[++i]);
    else if (strcmp(s, "--budget-minutes") == 0 && val) {
      char *end;
      double m = strtod(argv[++i], &end);
      if (*end || !(m > 0))
        return usage(d, "--budget-minutes must be a positive number of minutes, got", val);
      o->budget_s = m * 60;
    } else if (strcmp(s, "--pytorch-ms") == 0 && val) {
      char *end;
      double ms = strtod(argv[++i], &end);
      if (*end || !(ms > 0)) return usage(d, "--pytorch-ms must be a positive time in milliseconds, got", val);
      o->pytorch_ms = ms;
    } else if (s[0] == '-') return usage(d, "unknown option or missing value:", s);
    else if (!o->problem) o->problem = s;
    else return usage(d, "unexpected argument", s);
    if (rc != KR_EXIT_OK) return rc;
  }
  if (!o->problem) return usage(d, "needs PROBLEM.lua (see krewrite optimize --help)", NULL);
  o->build = build;
  return KR_EXIT_OK;
}

/* The output folder must exist (it is created if missing) and be writable, before any work. */
static int check_out_dir(const char *dir, KrDiags *d) {
  struct stat st;
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return usage(d, kr_arena_printf(d->arena, "cannot create the output folder (%s):",
                                    strerror(errno)), dir);
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return usage(d, "the output path is not a folder:", dir);
  if (access(dir, W_OK | X_OK) != 0)
    return usage(d, "the output folder is not writable:", dir);
  return KR_EXIT_OK;
}

static int check_device(const char *device, KrOptimizeOptions *o, KrDiags *d) {
  char gpu[256];
  int major = 0, minor = 0;
  KrDiags *probe = kr_diags_new();
  o->gpu = kr_cuda_probe(gpu, sizeof gpu, &major, &minor, probe) == KR_OK;
  if (strcmp(device, "cuda") == 0) {
    if (!o->gpu) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "optimize --device cuda: %s",
                  probe->items.len ? probe->items.data[0].message : "no GPU");
      kr_diags_free(probe);
      return KR_EXIT_USAGE;
    }
    o->device = KR_DEVICE_CUDA;
  } else if (strcmp(device, "cpu") != 0) {
    kr_diags_free(probe);
    return usage(d, "--device must be cpu or cuda, got", device);
  }
  if (o->gpu && !o->arch) o->arch = kr_arena_printf(d->arena, "sm_%d%d", major, minor);
  kr_diags_free(probe);
  if (o->profile) {
    const char *ncu;
    if (!o->gpu) return usage(d, "--profile needs a GPU (Nsight Compute measures one)", NULL);
    if (kr_profile_find_ncu(o->ncu, getenv("PATH"), KR_NCU_DEFAULT_PATH, &ncu, d->arena, d) != KR_OK)
      return usage(d, "--profile: Nsight Compute (ncu) is not available", NULL);
    o->ncu = ncu;
  }
  return KR_EXIT_OK;
}

/* The LLM's configuration comes from the environment; trouble is reported before the run. */
static int check_llm(KrLlmConfig *c, KrOptimizeOptions *o, KrArena *a, KrDiags *d) {
  if (kr_llm_config_from_env(c, a, d) != KR_OK) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "optimize --proposer llm: the LLM is not configured (see krewrite optimize --help)");
    return KR_EXIT_USAGE;
  }
  const char *r = getenv("KREWRITE_LLM_RETRIES");
  if (r && *r) {
    char *end;
    long n = strtol(r, &end, 10);
    if (*end || n < 0 || n > 100)
      return usage(d, "KREWRITE_LLM_RETRIES must be an integer from 0 to 100, got", r);
    c->max_retries = (int)n;
  }
  const char *t = getenv("KREWRITE_LLM_TIMEOUT");
  if (t && *t) {
    char *end;
    double v = strtod(t, &end);
    if (*end || !(v > 0) || v > 86400)
      return usage(d, "KREWRITE_LLM_TIMEOUT must be a number of seconds above 0, got", t);
    c->request_timeout_s = v;
  }
  o->llm = c;
  return KR_EXIT_OK;
}

static void print_summary(const KrOptimizeOptions *o, const KrOptimizeResult *r) {
  printf("optimize %s: %d round%s, %zu candidate%s, %zu verified, %zu timed; stopped: %s\n",
         o->problem, r->rounds_run, r->rounds_run == 1 ? "" : "s", r->candidates,
         r->candidates == 1 ? "" : "s", r->verified, r->timed, r->stop_reason);
  if (!o->gpu) printf("no GPU: none of the candidates could be timed (verified on the emulator)\n");
  if (r->best_id < 0) printf("no verified candidate\n");
  else if (r->best_speedup > 0)
    printf("best: candidate %d, %.3fx faster than the original\n", r->best_id, r->best_speedup);
  else printf("best (untimed: the deepest verified recipe): candidate %d\n", r->best_id);
  if (r->best_id >= 0)
    printf("recipe: %s/cand-%d.lua; rebuild: krewrite replay %s/best.json\n", o->out_dir,
           r->best_id, o->out_dir);
  if (r->proposer_error) printf("the LLM endpoint failed: %s\n", r->proposer_error);
  printf("trajectory: %s/run.json\n", o->out_dir);
}

int kr_cmd_optimize(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(optimize_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  Progress prog = {.tty = isatty(STDERR_FILENO), .t0 = kr_now_s()};
  KrOptimizeOptions o = {.max_repairs = -1, .rounds = 3, .branch = 2, .keep = 2,
                         .jobs = default_jobs(), .seed = 1, .timeout_s = 20,
                         .out_dir = "optimize-out", .stop = &interrupted,
                         .progress = print_progress, .tick = print_tick, .progress_ctx = &prog};
  const char *device = "cpu";
  KrLlmConfig llm;
  KrBuildFlags build = {0};
  int rc = parse_args(argc, argv, &o, &device, &build, d);
  if (rc == KR_EXIT_OK && !o.dry_run && o.proposer && strcmp(o.proposer, "llm") == 0)
    rc = check_llm(&llm, &o, a, d);
  if (rc == KR_EXIT_OK && o.dry_run) {
    KrOptimizeResult res;
    if (kr_optimize_run(&o, a, &res, d) == KR_OK) fputs(res.dry_run_text, stdout);
    else rc = KR_EXIT_INPUT;
    kr_cli_print_diags(d);
    kr_diags_free(d);
    kr_arena_free(a);
    return rc;
  }
  if (rc == KR_EXIT_OK) rc = check_out_dir(o.out_dir, d);
  if (rc == KR_EXIT_OK) rc = check_device(device, &o, d);
  if (rc == KR_EXIT_OK) {
    struct sigaction sa = {.sa_handler = on_sigint}, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    kr_proc_interrupt_flag(&interrupted);   /* a child's run (a GPU fill, the emulator) stops with it */
    KrOptimizeResult res;
    if (kr_optimize_run(&o, a, &res, d) != KR_OK) rc = res.candidates ? KR_EXIT_INPUT : KR_EXIT_USAGE;
    else rc = res.verified ? KR_EXIT_OK : KR_EXIT_INPUT;
    clear_bar(&prog);
    kr_proc_interrupt_flag(NULL);
    sigaction(SIGINT, &old, NULL);
    if (res.candidates || rc == KR_EXIT_OK || rc == KR_EXIT_INPUT) print_summary(&o, &res);
  }
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(a);
  return rc;
}
