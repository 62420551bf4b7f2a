/* search/optimize.h: the search loop of `krewrite optimize` (DESIGN.md, Search). Rounds of
 * proposals from the heuristic proposer (search/heuristic.h); each idea branches into up to
 * `branch` parameterisations. A schedule idea of the heuristic (a grid of tile sizes, or one
 * schedule pass with its few parameterisations) is first pruned by ptxas resources and ranked by
 * a model (search/prune.h); its `branch` best go on, and every variant's verdict goes into the
 * round's "pruning" in run.json. LLM ideas are not pruned. Each candidate recipe is applied (a
 * failing recipe is recorded as such), verified (runtime/verify.h, on the emulator or the GPU) and, when a GPU is present,
 * timed (runtime/bench.h). The `keep` best (by speedup; untimed: the first verified, in the
 * proposer's order) seed the next round. Before round 1 the original is built and verified
 * against itself on the device: when it does not build or run, nothing can be compared with it,
 * and the search stops at once ("original failed"). The loop stops at the round limit, the
 * budget, a round with no gain (named "every candidate failed to build" when none of its
 * candidates built), or when *stop becomes non-zero (checked between candidates). With jobs > 1 a
 * round's candidates are first built in up to `jobs` child processes at once (the build caches
 * keep the results); verification and timing then run one candidate at a time.
 *
 * Files in out_dir: cand-<id>.lua (each candidate's recipe), run.json (the trajectory, rewritten
 * atomically after every candidate, so an interrupted run leaves valid JSON), best.json (the best
 * candidate's apply log, exactly as `krewrite apply --log` writes it: `krewrite replay` rebuilds
 * the best kernel from it). Each candidate's compile report (ptxas resources) is in run.json and,
 * one line each, in the LLM's history. */
#ifndef KR_OPTIMIZE_H
#define KR_OPTIMIZE_H

#include <signal.h>

#include "runtime/verify.h"

struct KrLlmConfig;

typedef struct KrOptimizeOptions {
  const char *problem;          /* path of problem.lua */
  const KrBuildFlags *build;    /* the command line's -I and --define, after the spec's; NULL: none */
  const char *out_dir;          /* must exist and be writable */
  int rounds, branch, keep, jobs;
  KrDevice device;              /* where candidates are verified */
  const char *arch;             /* for the GPU; NULL: the device's */
  double budget_s;              /* wall clock for the whole search; <= 0: none */
  double pytorch_ms;            /* PyTorch's median on the same problem, recorded for the report; <= 0: none */
  uint64_t seed;
  bool allow_lowering;
  bool gpu;                     /* a GPU is present: time candidates */
  bool profile;                 /* profile each round's seed with Nsight Compute (needs gpu) */
  const char *ncu;              /* NULL: ncu in PATH, then /usr/local/cuda/bin/ncu */
  uint32_t verify_seeds;        /* 0: the spec's */
  double timeout_s;             /* per launch */
  volatile sig_atomic_t *stop;  /* may be NULL */
  const char *proposer;         /* "heuristic" (NULL: the same) or "llm" */
  const struct KrLlmConfig *llm;   /* search/llm.h; required for "llm" unless dry_run */
  int max_repairs;              /* llm: follow-ups after an unusable reply; < 0: default (2) */
  bool dry_run;                 /* propose round 1 only: res->dry_run_text, nothing written */
  /* Progress, one line per candidate (no newline). May be NULL. */
  void (*progress)(void *ctx, const char *line);
  /* Where the round stands: `done` of `total` candidates through `phase` ("compiling",
   * "verifying and timing"; NULL: the round is over). For a progress bar; may be NULL. */
  void (*tick)(void *ctx, int round, size_t done, size_t total, const char *phase);
  void *progress_ctx;
} KrOptimizeOptions;

typedef struct KrOptimizeResult {
  int rounds_run;
  size_t candidates, verified, timed;
  const char *stop_reason;      /* "round limit", "budget", "no gain", "interrupted", "original
                                 * failed", "every candidate failed to build", …; for the last
                                 * two followed by ": " and stop_error (a line for people) */
  const char *stop_error;       /* the error behind the stop: the original's (located where the
                                 * compiler or the emulator placed it) or the round's first build
                                 * error; NULL for the other reasons */
  int best_id;                  /* -1: none verified */
  const char *best_recipe;
  double best_speedup;          /* 0: not timed */
  const char *dry_run_text;     /* dry_run: the llm prompt, or the heuristic's ideas */
  const char *proposer_error;   /* the LLM endpoint failed (one line); NULL otherwise */
} KrOptimizeResult;

/* Runs the search. KR_ERR only for trouble before or outside the candidates (the spec does not
 * load, the trajectory cannot be written); failing candidates are recorded, not errors. An
 * original that does not build or run is not one either: the search stops before round 1 with
 * the reason "original failed", an error in `diags` naming the problem, and no candidate. */
KrStatus kr_optimize_run(const KrOptimizeOptions *o, KrArena *arena, KrOptimizeResult *res,
                         KrDiags *diags);

#endif
