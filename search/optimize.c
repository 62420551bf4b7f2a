/* search/optimize.c: the search loop (search/optimize.h): rounds × ideas × parameterisations,
 * each candidate applied, verified, timed when a GPU is present, and recorded in the trajectory
 * after every step so an interruption leaves valid JSON behind. */
#include "search/optimize.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/diff.h"
#include "base/proc.h"
#include "recipes/recipe.h"
#include "runtime/bench.h"
#include "search/candidate.h"
#include "search/heuristic.h"
#include "search/llm_proposer.h"
#include "search/profile.h"
#include "search/prune.h"

/* ---- State ------------------------------------------------------------------------------------ */

/* What became of a candidate; run.json, the progress lines and the LLM's history spell it with
 * status_name. CAND_PENDING: applied, not yet verified. */
typedef enum { CAND_PENDING, CAND_VERIFIED, CAND_FAILED, CAND_BUILD_FAILED, CAND_RECIPE_ERROR, CAND_INTERRUPTED } CandStatus;

static const char *status_name(CandStatus st) {
  switch (st) {
  case CAND_VERIFIED: return "verified";
  case CAND_FAILED: return "failed";
  case CAND_BUILD_FAILED: return "build failed";
  case CAND_RECIPE_ERROR: return "recipe error";
  case CAND_INTERRUPTED: return "interrupted";
  case CAND_PENDING: break;
  }
  return "pending";
}

typedef struct Cand {
  int id, round;
  const char *json;          /* the candidate's object in run.json */
  const char *recipe;
  bool verified, timed;
  double speedup;
  CandStatus status;
  const char *error;            /* for the LLM's history */
  const char *resources;        /* one line of ptxas resources, for the LLM's history */
  const char *schedule;         /* the last schedule pass's record (JSON), for the history */
  double orig_ms, cand_ms;      /* medians when timed */
} Cand;

typedef struct RoundRec {
  int round;
  const char *json;          /* the round's fields before "candidates" */
  const char **rejected;     /* llm: the replies or ideas turned down, for the next prompt */
  size_t nrejected;
  KrBuf pruning;             /* the round's "pruning" entries (JSON objects, comma-separated) */
} RoundRec;

typedef struct Kept {
  const char *recipe;        /* the search arena's copy */
  KrRecipeRun *run;
} Kept;

typedef struct Search {
  const KrOptimizeOptions *o;
  KrArena *a;
  KrDiags *d;
  KrSpec *spec;
  char *src_text;
  size_t src_len;
  const char **kernels;
  size_t nkernels;
  double intensity, t0;
  unsigned long applies0;    /* kr_recipe_applies() when the search began */
  double output_tiles, reduction_length;
  KrVec(Cand) cands;
  KrVec(RoundRec) rounds;
  const char *proposer_error;
  int rounds_run;
  const char *stop_reason;
  const char *stop_error;    /* the error behind "original failed" and "every candidate failed to
                              * build", with its place; NULL: none */
  int best;                  /* index into cands, -1: none */
  const char *best_log;      /* kr_recipe_log_json of the best candidate */
  const char *best_steps;    /* timed: `bench --steps --json` of the best recipe, at the end; NULL: none */
  const char *orig_compile;  /* the original's compile report (JSON), NULL: none */
  const char *orig_resources;   /* its one-line summary */
  const KrProfile *prof;     /* --profile: this round's seed, as Nsight Compute saw it; NULL: none */
  const char *prof_json;     /* this round's "profile" in run.json */
  double done_s;             /* time spent verifying and timing the candidates so far */
  size_t ndone;
  /* The runs still wanted after their candidate was recorded, their documents kept: those of the
   * verified candidates that may seed the next round, be profiled, or be the best, whose steps are
   * timed at the end. So a seed is applied once, as its candidate. */
  KrVec(Kept) kept;
} Search;

static bool is_llm(const KrOptimizeOptions *o) {
  return o->proposer && strcmp(o->proposer, "llm") == 0;
}

static const char *first_error(const KrDiags *d, KrArena *a) {
  const char *m = kr_diags_first_error(d);
  return m ? kr_arena_strdup(a, m) : "unknown error";
}

/* The first error as the compiler placed it, "kernel.cu:12:5: error: message", for a build that
 * failed: where the message alone would leave the reader searching. */
static const char *first_error_at(const KrDiags *d, KrArena *a) {
  for (size_t i = 0; i < d->items.len; i++) {
    const KrDiag *g = &d->items.data[i];
    if (g->severity != KR_DIAG_ERROR) continue;
    if (!g->path) return kr_arena_strdup(a, g->message);
    KrBuf b = {0};
    kr_diag_format(g, &b);
    const char *r = kr_arena_strndup(a, b.data, strcspn(b.data, "\n"));  /* not the caret */
    kr_buf_free(&b);
    return r;
  }
  return first_error(d, a);
}

/* ---- The trajectory ----------------------------------------------------------------------------- */

static KrStatus write_trajectory(Search *s) {
  const KrOptimizeOptions *o = s->o;
  KrBuf b = {0};
  kr_buf_puts(&b, "{\n  \"tool\": \"krewrite " KR_VERSION "\",\n  \"problem\": ");
  kr_buf_json_str(&b, o->problem);
  kr_buf_printf(&b, ",\n  \"proposer\": \"%s\",", is_llm(o) ? "llm" : "heuristic");
  kr_buf_printf(&b, "\n  \"seed\": %llu,\n  \"device\": \"%s\",\n",
                (unsigned long long)o->seed, o->device == KR_DEVICE_CUDA ? "cuda" : "cpu");
  kr_buf_printf(&b, "  \"timed\": %s,\n  \"rounds_limit\": %d,\n  \"branch\": %d,\n  \"keep\": %d,\n",
                o->gpu ? "true" : "false", o->rounds, o->branch, o->keep);
  if (s->intensity >= 0) kr_buf_printf(&b, "  \"intensity_flop_per_byte\": %.6g,\n", s->intensity);
  else kr_buf_puts(&b, "  \"intensity_flop_per_byte\": null,\n");
  kr_buf_printf(&b, "  \"jobs\": %d,\n  \"original\": {\"compile\": %s},\n", o->jobs,
                s->orig_compile ? s->orig_compile : "null");
  /* Recipes applied so far: each candidate once (by the pruning, the LLM proposer's check or the
   * make stage), every variant the pruning weighed, and a seed only when no candidate made it. */
  kr_buf_printf(&b, "  \"recipe_applies\": %lu,\n", kr_recipe_applies() - s->applies0);
  kr_buf_puts(&b, "  \"rounds\": [");
  for (size_t r = 0; r < s->rounds.len; r++) {
    const RoundRec *rr = &s->rounds.data[r];
    kr_buf_printf(&b, "%s\n    {\"round\": %d, %s, \"pruning\": [", r ? "," : "", rr->round, rr->json);
    if (rr->pruning.len) kr_buf_append(&b, rr->pruning.data, rr->pruning.len);
    kr_buf_puts(&b, "], \"candidates\": [");
    bool any = false;
    for (size_t i = 0; i < s->cands.len; i++) {
      if (s->cands.data[i].round != rr->round) continue;
      kr_buf_puts(&b, any ? ",\n      " : "\n      ");
      kr_buf_puts(&b, s->cands.data[i].json);
      any = true;
    }
    kr_buf_puts(&b, "]}");
  }
  kr_buf_puts(&b, s->rounds.len ? "\n  ],\n" : "],\n");
  kr_buf_puts(&b, "  \"proposer_error\": ");
  kr_buf_json_str(&b, s->proposer_error);
  kr_buf_puts(&b, ",\n");
  kr_buf_puts(&b, "  \"stop_reason\": ");
  kr_buf_json_str(&b, s->stop_reason);
  kr_buf_puts(&b, ",\n  \"stop_error\": ");
  kr_buf_json_str(&b, s->stop_error);
  kr_buf_puts(&b, ",\n  \"best\": ");
  if (s->best >= 0) {
    const Cand *c = &s->cands.data[s->best];
    kr_buf_printf(&b, "{\"id\": %d, \"round\": %d, \"recipe\": ", c->id, c->round);
    kr_buf_json_str(&b, c->recipe);
    if (c->timed) kr_buf_printf(&b, ", \"speedup\": %.6g}", c->speedup);
    else kr_buf_puts(&b, ", \"speedup\": null, \"note\": \"not timed: the deepest verified recipe\"}");
  } else kr_buf_puts(&b, "null");
  kr_buf_puts(&b, ",\n  \"best_log\": ");
  kr_buf_puts(&b, s->best_log ? s->best_log : "null");
  kr_buf_puts(&b, ",\n  \"best_steps\": ");
  kr_buf_puts(&b, s->best_steps ? s->best_steps : "null");
  if (o->pytorch_ms > 0) kr_buf_printf(&b, ",\n  \"pytorch\": {\"median_ms\": %.6g, \"label\": \"PyTorch\"}", o->pytorch_ms);
  else kr_buf_puts(&b, ",\n  \"pytorch\": null");
  kr_buf_puts(&b, "\n}\n");
  const char *path = kr_arena_printf(s->a, "%s/run.json", o->out_dir);
  KrStatus st = kr_file_write_atomic(path, b.data, b.len, s->d);
  kr_buf_free(&b);
  return st;
}

/* ---- One candidate: apply → build → verify → time → record ----------------------------------------
 * A candidate is made once: its recipe is applied (make_candidate) and the run, with its text,
 * audit record and launch changes, is what the other stages take (verify's and bench's `run`);
 * nothing after make_candidate applies the recipe again. The stages' seconds go into run.json. */

typedef struct Stages {
  double apply_s, build_s, verify_s, time_s;   /* < 0: the stage did not run */
} Stages;

/* A candidate made: the run (NULL when the recipe failed) and what the record takes from it. */
typedef struct Made {
  KrRecipeRun *run;
  CandStatus status;         /* CAND_PENDING, or CAND_RECIPE_ERROR */
  const char *params, *diff, *error, *log;
  const char *schedule;      /* the schedule after the recipe's last schedule pass, JSON */
  double built_s;            /* --jobs: seconds a child spent building it; < 0: none did */
} Made;

typedef struct Outcome {
  CandStatus status;
  bool no_gpu;               /* verified, and not timed because there is no GPU */
  const char *error;
  const char *compile;       /* the compile report (KrVerifyReport), JSON */
  const char *resources;     /* the same, one line */
  const KrVerifyReport *rep;
  const KrBenchReport *bench;
  const char *timing_note;
  Stages t;
} Outcome;

static const char *first_failure(const KrVerifyReport *r, KrArena *a) {
  if (!r) return NULL;
  if (r->error) return r->error;
  for (size_t i = 0; i < r->cases.len; i++)
    if (!r->cases.data[i].pass)
      return kr_arena_printf(a, "%s (seed %u): %s", r->cases.data[i].sizes, r->cases.data[i].seed,
                             r->cases.data[i].failure ? r->cases.data[i].failure : "failed");
  return NULL;
}

/* Apply: the variant's recipe, saved at `path`, over the original, once (unless the pruning or the
 * LLM proposer's check applied it already: then that run is the candidate, and its apply's
 * seconds are the stage's); the diff and the audit log for the record. Its document is kept, for a
 * later round that starts from it. */
static void make_candidate(Search *s, const char *path, KrIdeaVariant *v, KrArena *sa, Made *m, double *apply_s) {
  KrRecipeOptions ro;
  kr_recipe_options_init(&ro, sa);
  ro.build = &s->spec->build;
  ro.keep_doc = true;
  KrDiags *d = kr_diags_new();
  *m = (Made){.status = CAND_PENDING, .built_s = -1};
  double t = kr_now_s();
  KrStatus st = KR_OK;
  if (v->run) {
    m->run = v->run, v->run = NULL;
    m->run->recipe_path = kr_arena_strdup(m->run->arena, path);   /* where the record says it is */
    *apply_s = v->run_s;
  } else {
    st = kr_recipe_apply(path, v->recipe, strlen(v->recipe), s->spec->source, s->src_text, s->src_len, &ro, &m->run, d);
    *apply_s = kr_now_s() - t;
  }
  if (st != KR_OK) {
    m->run = NULL;
    m->status = CAND_RECIPE_ERROR;
    m->error = first_error(d, sa);
  } else {
    KrBuf b = {0};
    kr_diff_unified(s->src_text, s->src_len, m->run->output_text, m->run->output_len, "a/kernel.cu",
                    "b/kernel.cu", 3, &b);
    m->diff = kr_arena_strndup(sa, b.data ? b.data : "", b.len);
    b.len = 0;
    kr_recipe_log_json(m->run, &b);
    m->log = kr_arena_strndup(sa, b.data, b.len);
    kr_buf_free(&b);
    const KrRecipeRun *r = m->run;
    if (r->records.len) m->params = kr_arena_strdup(sa, r->records.data[r->records.len - 1].params_json);
    for (size_t i = 0; i < r->records.len; i++)
      if (r->records.data[i].schedule_json) m->schedule = kr_arena_strdup(sa, r->records.data[i].schedule_json);
  }
  kr_diags_free(d);
}

static void unmake(Made *m) {
  if (m->run) kr_recipe_run_free(m->run);
  m->run = NULL;
}

/* Verification's options for a made candidate: its run, whole. */
static KrVerifyOptions made_options(const Search *s, const Made *m) {
  return (KrVerifyOptions){.device = s->o->device, .arch = s->o->arch, .run = m->run, .passes = SIZE_MAX,
                           .seeds = s->o->verify_seeds, .shuffle = true, .timeout_s = s->o->timeout_s};
}

/* Build and verify: the candidate built for the device (with its compile report; the caches answer
 * when --jobs built it already, whose child's time is the build's then), then run against the
 * original on the spec's cases. One call does both, so that the build is made once: the report
 * says how long the build took, and the rest is the verification's. */
static bool verify_candidate(Search *s, const Made *m, KrArena *sa, Outcome *out) {
  KrDiags *d = kr_diags_new();
  KrVerifyOptions vo = made_options(s, m);
  vo.compile_report = true;
  KrVerifyReport *rep = NULL;
  double t = kr_now_s();
  KrStatus vs = kr_verify(s->spec, &vo, sa, &rep, d);
  double all = kr_now_s() - t;
  out->compile = rep->compile;
  out->resources = rep->resources;
  out->t.build_s = rep->build_s + (m->built_s > 0 ? m->built_s : 0);
  if (rep->build_failed) {
    out->status = CAND_BUILD_FAILED;
    out->error = first_error_at(d, sa);
    kr_diags_free(d);
    return false;
  }
  out->t.verify_s = all - rep->build_s;
  out->rep = rep;
  out->status = vs == KR_OK ? CAND_VERIFIED : CAND_FAILED;
  if (vs != KR_OK) {
    out->error = first_failure(rep, sa);
    if (!out->error) out->error = first_error(d, sa);
  }
  if (s->o->stop && *s->o->stop) out->status = CAND_INTERRUPTED;
  kr_diags_free(d);
  return out->status == CAND_VERIFIED;
}

/* Time: the candidate against the original on the GPU, by bench's protocol. */
static void time_candidate(Search *s, const Made *m, KrArena *sa, Outcome *out) {
  if (!s->o->gpu) {
    out->timing_note = "not timed: no GPU", out->no_gpu = true;
    return;
  }
  KrBenchRunOptions bo = {.run = m->run, .passes = SIZE_MAX, .arch = s->o->arch, .timing = kr_bench_options_default()};
  KrBenchReport *br = NULL;
  KrDiags *d = kr_diags_new();
  double t = kr_now_s();
  if (kr_bench(s->spec, &bo, sa, &br, d) == KR_OK && br && !br->error) out->bench = br;
  else out->timing_note = kr_arena_printf(sa, "timing failed: %s", br && br->error ? br->error : first_error(d, sa));
  out->t.time_s = kr_now_s() - t;
  kr_diags_free(d);
}

static void stage_json(KrBuf *b, const char *name, double v, bool first) {
  kr_buf_printf(b, "%s\"%s\": ", first ? "" : ", ", name);
  if (v >= 0) kr_buf_printf(b, "%.4g", v);
  else kr_buf_puts(b, "null");
}

static const char *candidate_json(const Cand *c, const KrIdea *idea, const KrIdeaVariant *v, const Made *m,
                                  const Outcome *out, KrArena *sa, KrArena *keep) {
  KrBuf b = {0};
  kr_buf_printf(&b, "{\"id\": %d, \"round\": %d, \"idea\": ", c->id, c->round);
  kr_buf_json_str(&b, kr_arena_printf(sa, "%s %s on %s", idea->pass, v->label, idea->kernel));
  kr_buf_puts(&b, ", \"pass\": "), kr_buf_json_str(&b, idea->pass);
  kr_buf_puts(&b, ", \"kernel\": "), kr_buf_json_str(&b, idea->kernel);
  kr_buf_puts(&b, ", \"reason\": "), kr_buf_json_str(&b, idea->reason);
  kr_buf_puts(&b, ", \"recipe\": "), kr_buf_json_str(&b, v->recipe);
  kr_buf_puts(&b, ", \"params\": "), kr_buf_puts(&b, m->params ? m->params : "null");
  kr_buf_puts(&b, ", \"params_lua\": "), kr_buf_json_str(&b, v->params_lua);
  kr_buf_puts(&b, ", \"status\": "), kr_buf_json_str(&b, status_name(out->status));
  kr_buf_puts(&b, ", \"error\": "), kr_buf_json_str(&b, out->error);
  kr_buf_puts(&b, ", \"verification\": ");
  if (out->rep) {
    kr_buf_printf(&b, "{\"passed\": %zu, \"failed\": %zu, \"first_failure\": ", out->rep->passed,
                  out->rep->failed);
    kr_buf_json_str(&b, first_failure(out->rep, sa));
    kr_buf_puts(&b, "}");
  } else kr_buf_puts(&b, "null");
  if (out->bench) {
    kr_buf_printf(&b, ", \"times\": {\"original_median_ms\": %.6g, \"candidate_median_ms\": %.6g, \"floor_ms\": ",
                  out->bench->original.median_ms, out->bench->rewritten.median_ms);
    if (out->bench->floor_ms > 0) kr_buf_printf(&b, "%.6g", out->bench->floor_ms);
    else kr_buf_puts(&b, "null");
    kr_buf_printf(&b, "}, \"speedup\": %.6g", out->bench->speedup);
  } else kr_buf_puts(&b, ", \"times\": null, \"speedup\": null");
  kr_buf_puts(&b, ", \"timing_note\": "), kr_buf_json_str(&b, out->timing_note);
  kr_buf_puts(&b, ", \"stages\": {");
  stage_json(&b, "apply_s", out->t.apply_s, true);
  stage_json(&b, "build_s", out->t.build_s, false);
  stage_json(&b, "verify_s", out->t.verify_s, false);
  stage_json(&b, "time_s", out->t.time_s, false);
  kr_buf_puts(&b, "}, \"compile\": "), kr_buf_puts(&b, out->compile ? out->compile : "null");
  kr_buf_puts(&b, ", \"model\": "), kr_buf_puts(&b, v->model ? v->model : "null");
  kr_buf_puts(&b, ", \"diff\": "), kr_buf_json_str(&b, m->diff);
  kr_buf_puts(&b, "}");
  const char *j = kr_arena_strndup(keep, b.data, b.len);
  kr_buf_free(&b);
  return j;
}

static void report_progress(Search *s, const Cand *c, size_t k, size_t n, const KrIdea *idea,
                            const KrIdeaVariant *v, const Outcome *out, KrArena *sa) {
  if (!s->o->progress) return;
  const char *tail;
  if (out->status != CAND_VERIFIED)
    tail = out->error ? kr_arena_printf(sa, "%s: %s", status_name(out->status), out->error) : status_name(out->status);
  else if (out->bench)
    tail = kr_arena_printf(sa, "verified, %.3gx (%.4g ms -> %.4g ms)", out->bench->speedup,
                           out->bench->original.median_ms, out->bench->rewritten.median_ms);
  else if (out->no_gpu)
    tail = "verified, not timed (no GPU)";
  else tail = kr_arena_printf(sa, "verified, %s", out->timing_note ? out->timing_note : "not timed");
  const char *line = kr_arena_printf(sa, "round %d candidate %zu/%zu: %s %s on %s: %s", c->round, k,
                                     n, idea->pass, v->label, idea->kernel, tail);
  char *nl = strchr(line, '\n');   /* one line per candidate, whatever the error said */
  if (nl) *nl = '\0';
  s->o->progress(s->o->progress_ctx, line);
}

static bool is_better(const Search *s, const Cand *c) {
  if (!c->verified) return false;
  if (s->best < 0) return !s->o->gpu || c->timed;
  const Cand *b = &s->cands.data[s->best];
  if (s->o->gpu) return c->timed && c->speedup > b->speedup;
  return c->round > b->round;   /* untimed: the deepest verified recipe */
}

/* Record: the candidate into the trajectory (and best.json when it is the best so far). */
static KrStatus record_candidate(Search *s, Cand *c, size_t k, size_t n, const KrIdea *idea,
                                 const KrIdeaVariant *v, const Made *m, const Outcome *out, KrArena *sa) {
  KrStatus st = KR_OK;
  c->verified = out->status == CAND_VERIFIED;
  c->timed = out->bench != NULL;
  c->speedup = out->bench ? out->bench->speedup : 0;
  c->orig_ms = out->bench ? out->bench->original.median_ms : 0;
  c->cand_ms = out->bench ? out->bench->rewritten.median_ms : 0;
  c->schedule = m->schedule ? kr_arena_strdup(s->a, m->schedule) : NULL;
  c->status = out->status;
  c->error = out->error ? kr_arena_strdup(s->a, out->error) : NULL;
  const char *ff = out->rep ? first_failure(out->rep, sa) : NULL;
  if (!c->error && ff) c->error = kr_arena_strdup(s->a, ff);
  c->resources = out->resources ? kr_arena_strdup(s->a, out->resources) : NULL;
  c->json = candidate_json(c, idea, v, m, out, sa, s->a);
  kr_vec_push(s->a, &s->cands, *c);
  if (is_better(s, c)) {
    s->best = (int)s->cands.len - 1;
    s->best_log = kr_arena_strdup(s->a, m->log);
    const char *bp = kr_arena_printf(sa, "%s/best.json", s->o->out_dir);
    st = kr_file_write_atomic(bp, m->log, strlen(m->log), s->d);
  }
  report_progress(s, c, k, n, idea, v, out, sa);
  if (st == KR_OK) st = write_trajectory(s);
  return st;
}

/* The candidate pipeline, made candidate in hand: build and verify, time, record. */
static KrStatus run_candidate(Search *s, int round, size_t k, size_t n, const KrIdea *idea,
                              const KrIdeaVariant *v, int id, const Made *m, double apply_s) {
  KrArena *sa = kr_arena_new();
  Cand c = {.id = id, .round = round, .recipe = kr_arena_strdup(s->a, v->recipe)};
  Outcome out = {.status = m->status, .error = m->error, .t = {apply_s, -1, -1, -1}};
  if (out.status == CAND_PENDING && verify_candidate(s, m, sa, &out)) time_candidate(s, m, sa, &out);
  KrStatus st = record_candidate(s, &c, k, n, idea, v, m, &out, sa);
  kr_arena_free(sa);
  return st;
}

/* ---- Building a round's candidates in parallel (--jobs) ------------------------------------------ */

typedef struct PrepJob {
  const Search *s;
  const Made *m;
} PrepJob;

/* What a child sends back: whether it built, and how long it took. */
typedef struct PrepRecord {
  char ok;
  double seconds;
} PrepRecord;

/* In a child: build the made candidate (emulator library or cubin, and the cubin for the resource
 * report), which leaves it in the content-addressed caches; the verdict only matters as a sign of
 * life: the serial phase sees the same outcome from the caches. */
static void prep_child(void *ctx, int fd) {
  const PrepJob *j = ctx;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrVerifyOptions vo = made_options(j->s, j->m);
  vo.compile_report = true;
  double t = kr_now_s();
  PrepRecord r = {.ok = kr_verify_prepare(j->s->spec, &vo, a, NULL, NULL, d) == KR_OK};
  r.seconds = kr_now_s() - t;
  ssize_t w = write(fd, &r, sizeof r);
  (void)w;
  kr_diags_free(d);
  kr_arena_free(a);
}

/* Builds the round's made candidates in up to `jobs` child processes at a time, so that the serial
 * verify-and-time phase finds them compiled. Trouble here (a fork that fails, a child that dies)
 * costs only time: the serial phase builds what is missing and reports its errors. */
static void prepare_parallel(Search *s, int round, Made *made, size_t n, KrArena *a) {
  size_t jobs = (size_t)s->o->jobs, started = 0, done = 0;
  int *pid = kr_arena_alloc(a, n * sizeof *pid), *fd = kr_arena_alloc(a, n * sizeof *fd);
  PrepJob *job = kr_arena_alloc(a, n * sizeof *job);
  double deadline = s->o->budget_s > 0 ? s->t0 + s->o->budget_s : kr_now_s() + 3600;
  if (s->o->tick) s->o->tick(s->o->progress_ctx, round, 0, n, "compiling");
  while (done < n) {
    while (started < n && started - done < jobs && !(s->o->stop && *s->o->stop)) {
      pid[started] = -1;
      if (made[started].run) {
        job[started] = (PrepJob){s, &made[started]};
        KrDiags *fd_d = kr_diags_new();
        if (kr_proc_fork(prep_child, &job[started], "build a candidate", &pid[started], &fd[started], fd_d) != KR_OK)
          pid[started] = -1;
        kr_diags_free(fd_d);
      }
      started++;
    }
    if (done == started) break;   /* interrupted before anything more started */
    if (pid[done] > 0) {
      PrepRecord r;
      if (s->o->stop && *s->o->stop) kill(pid[done], SIGKILL);
      if (kr_proc_read_record(fd[done], &r, sizeof r, deadline) == 1) made[done].built_s = r.seconds;
      else kill(pid[done], SIGKILL);
      close(fd[done]);
      waitpid(pid[done], NULL, 0);
    }
    done++;
    if (s->o->tick) s->o->tick(s->o->progress_ctx, round, done, n, "compiling");
  }
}

/* ---- Rounds ---------------------------------------------------------------------------------------- */

typedef struct Planned {
  const KrIdea *idea;
  KrIdeaVariant *v;        /* its run, when one was made already, goes to the candidate */
} Planned;

typedef KrVec(Planned) PlanList;

static bool seen_recipe(const Search *s, const char *recipe, const PlanList *plan) {
  for (size_t i = 0; i < s->cands.len; i++)
    if (strcmp(s->cands.data[i].recipe, recipe) == 0) return true;
  for (size_t i = 0; i < plan->len; i++)
    if (strcmp(plan->data[i].v->recipe, recipe) == 0) return true;
  return false;
}

/* Plans the variant unless its recipe was tried or planned already (whose run, if made, goes). */
static void plan_variant(const Search *s, const KrIdea *idea, KrIdeaVariant *v, KrArena *a, PlanList *plan) {
  if (seen_recipe(s, v->recipe, plan)) {
    if (v->run) kr_recipe_run_free(v->run);
    v->run = NULL;
    return;
  }
  Planned p = {idea, v};
  kr_vec_push(a, plan, p);
}

/* ---- Runs kept for later rounds ---------------------------------------------------------------------- */

/* The kept run of `recipe`, or NULL (the original's is never kept: round 1 alone starts from it). */
static const KrRecipeRun *kept_run(const Search *s, const char *recipe) {
  for (size_t i = 0; recipe && i < s->kept.len; i++)
    if (strcmp(s->kept.data[i].recipe, recipe) == 0) return s->kept.data[i].run;
  return NULL;
}

static void keep_run(Search *s, const char *recipe, KrRecipeRun *run) {
  Kept k = {recipe, run};
  kr_vec_push(s->a, &s->kept, k);
}

/* Frees the kept runs but those of `seeds` and the best's; all when n is SIZE_MAX. */
static void drop_runs(Search *s, const char **seeds, size_t n) {
  size_t w = 0;
  for (size_t i = 0; i < s->kept.len; i++) {
    const char *r = s->kept.data[i].recipe;
    bool want = n != SIZE_MAX && s->best >= 0 && strcmp(s->cands.data[s->best].recipe, r) == 0;
    for (size_t j = 0; j < n && n != SIZE_MAX && !want; j++) want = seeds[j] && strcmp(seeds[j], r) == 0;
    if (want) s->kept.data[w++] = s->kept.data[i];
    else kr_recipe_run_free(s->kept.data[i].run);
  }
  s->kept.len = w;
}

/* The budget is kept by not starting a candidate that would, at the mean time of the candidates
 * so far, end after it. */
static bool should_stop(Search *s) {
  double next = s->ndone ? s->done_s / (double)s->ndone : 0;
  if (s->o->stop && *s->o->stop) s->stop_reason = "interrupted";
  else if (s->o->budget_s > 0 && kr_now_s() - s->t0 + next >= s->o->budget_s)
    s->stop_reason = "budget";
  return s->stop_reason != NULL;
}

/* The seeds of round `round` + 1: the `keep` best verified candidates of `round` (by speedup
 * when timed, equal speedups in proposal order; untimed: in proposal order). */
static size_t next_seeds(const Search *s, int round, const char **seeds, size_t keep) {
  size_t *idx = kr_arena_alloc(s->a, (s->cands.len + 1) * sizeof *idx), n = 0;
  for (size_t i = 0; i < s->cands.len; i++) {
    const Cand *c = &s->cands.data[i];
    if (c->round != round || !c->verified || (s->o->gpu && !c->timed)) continue;
    size_t at = n++;
    while (s->o->gpu && at > 0 && c->speedup > s->cands.data[idx[at - 1]].speedup) {
      idx[at] = idx[at - 1];
      at--;
    }
    idx[at] = i;
  }
  if (n > keep) n = keep;
  for (size_t i = 0; i < n; i++) seeds[i] = s->cands.data[idx[i]].recipe;
  return n;
}

static void add_round(Search *s, int round, const char *json) {
  RoundRec r = {.round = round, .json = s->prof_json ? kr_arena_printf(s->a, "%s, \"profile\": %s",
                                                                       json, s->prof_json)
                                                      : kr_arena_strdup(s->a, json)};
  kr_vec_push(s->a, &s->rounds, r);
}

/* The candidate whose recipe this one's extends (the longest earlier recipe it starts with), or
 * NULL: the step this candidate took is the difference. */
static const Cand *parent_of(const Search *s, size_t i) {
  const Cand *best = NULL;
  size_t bl = 0, n = strlen(s->cands.data[i].recipe);
  for (size_t j = 0; j < i; j++) {
    size_t l = strlen(s->cands.data[j].recipe);
    if (l < n && l > bl && strncmp(s->cands.data[j].recipe, s->cands.data[i].recipe, l) == 0) best = &s->cands.data[j], bl = l;
  }
  return best;
}

/* The history the LLM sees: every candidate tried so far with its result, its times (and the gain
 * of its step over the candidate it extends) where timed, its resources and its schedule. */
static const char *history_text(const Search *s, const char **seeds, size_t nseeds, KrArena *a) {
  if (!s->cands.len && !s->rounds.len) return "";
  KrBuf b = {0};
  for (size_t i = 0; i < s->cands.len; i++) {
    const Cand *c = &s->cands.data[i], *up = parent_of(s, i);
    kr_buf_printf(&b, "- candidate %d (round %d): %s", c->id, c->round, status_name(c->status));
    if (c->timed) {
      kr_buf_printf(&b, ", %.4g ms against the original's %.4g ms (speedup %.3fx)", c->cand_ms, c->orig_ms, c->speedup);
      if (up && up->timed && c->cand_ms > 0)
        kr_buf_printf(&b, "; its last step: %.3fx over candidate %d (%.4g ms)", up->cand_ms / c->cand_ms, up->id,
                      up->cand_ms);
    } else if (c->verified) kr_buf_puts(&b, ", not timed");
    if (c->error) kr_buf_printf(&b, "; first failure: %s", c->error);
    if (c->resources) kr_buf_printf(&b, "; %s", c->resources);
    if (c->schedule) kr_buf_printf(&b, "; schedule %s", c->schedule);
    kr_buf_printf(&b, "\n```lua\n%s\n```\n", c->recipe);
  }
  for (size_t r = 0; r < s->rounds.len; r++)
    for (size_t i = 0; i < s->rounds.data[r].nrejected; i++)
      kr_buf_printf(&b, "- rejected in round %d: %s\n", s->rounds.data[r].round,
                    s->rounds.data[r].rejected[i]);
  for (size_t i = 0; i < nseeds; i++)
    if (seeds[i] && *seeds[i])
      kr_buf_printf(&b, "Best so far (build on it):\n```lua\n%s\n```\n", seeds[i]);
  const char *r = kr_arena_strndup(a, b.data, b.len);
  kr_buf_free(&b);
  return r;
}

static const char *pass_of(const char *recipe, const char *key, KrArena *a) {
  const char *last = NULL;
  for (const char *p = strstr(recipe, key); p; p = strstr(p + 1, key)) last = p + strlen(key);
  if (!last) return "?";
  size_t n = strcspn(last, "\"'");
  return kr_arena_strndup(a, last, n);
}

/* What the LLM is told of the kernels' resources: the original's ptxas report, and the best
 * candidate's so far. */
static const char *profile_text(const Search *s, KrArena *a) {
  KrBuf b = {0};
  if (s->orig_resources) kr_buf_printf(&b, "The original kernel: %s\n", s->orig_resources);
  if (s->best >= 0 && s->cands.data[s->best].resources)
    kr_buf_printf(&b, "The best candidate so far (%d): %s\n", s->cands.data[s->best].id,
                  s->cands.data[s->best].resources);
  if (s->prof && s->prof->text)
    kr_buf_printf(&b, "Nsight Compute, on the %s:\n%s\n",
                  s->best >= 0 ? "best candidate so far" : "original kernel", s->prof->text);
  const char *r = b.len ? kr_arena_strndup(a, b.data, b.len) : NULL;
  kr_buf_free(&b);
  return r;
}

/* ---- Resource pruning of a schedule idea (search/prune.h) ------------------------------------------ */

static bool is_schedule_idea(const KrIdea *idea) {
  const KrPass *p = kr_pass_find(idea->pass);
  return p && p->schedule;
}

static void log_line(const Search *s, KrArena *a, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void log_line(const Search *s, KrArena *a, const char *fmt, ...) {
  if (!s->o->progress) return;
  va_list ap;
  va_start(ap, fmt);
  char *line = kr_arena_vprintf(a, fmt, ap);
  va_end(ap);
  s->o->progress(s->o->progress_ctx, line);
}

/* Prunes and ranks the variants of a schedule idea, puts the `branch` best into the plan and
 * records every variant's verdict in the round's "pruning". */
static void prune_idea(Search *s, int round, const KrIdea *idea, KrArena *ia, PlanList *plan) {
  size_t n = idea->variants.len, keep = s->o->branch > 0 ? (size_t)s->o->branch : 1;
  KrPruneCand *c = kr_arena_alloc(ia, (n + 1) * sizeof *c);
  for (size_t i = 0; i < n; i++) c[i] = (KrPruneCand){.label = idea->variants.data[i].label,
                                                      .recipe = idea->variants.data[i].recipe};
  KrPruneOptions po = {.source_path = s->spec->source, .build = &s->spec->build, .source_text = s->src_text, .source_len = s->src_len,
                       .kernel = idea->kernel, .arch = s->o->arch, .jobs = s->o->jobs, .keep = keep,
                       .deadline = s->o->budget_s > 0 ? s->t0 + s->o->budget_s : 0, .rows = idea->rows, .across = idea->across,
                       .outputs = idea->outputs, .keep_runs = true};
  const char *note;
  if (s->o->tick) s->o->tick(s->o->progress_ctx, round, 0, n, "compiling for resources");
  kr_prune_run(&po, c, n, ia, &note);
  RoundRec *rr = &s->rounds.data[s->rounds.len - 1];
  KrBuf *b = &rr->pruning;
  if (b->len) kr_buf_puts(b, ", ");
  kr_buf_puts(b, "{\"idea\": ");
  kr_buf_json_str(b, kr_arena_printf(ia, "%s on %s", idea->pass, idea->kernel));
  kr_buf_puts(b, ", \"note\": "), kr_buf_json_str(b, note);
  kr_buf_printf(b, ", \"variants\": %zu, \"refused_by_checks\": [", n + idea->refused.len);
  for (size_t i = 0; i < idea->refused.len; i++) {
    kr_buf_puts(b, i ? ", {\"label\": " : "{\"label\": "), kr_buf_json_str(b, idea->refused.data[i].label);
    kr_buf_puts(b, ", \"why\": "), kr_buf_json_str(b, idea->refused.data[i].why), kr_buf_puts(b, "}");
  }
  kr_buf_puts(b, "], \"candidates\": [");
  size_t counts[5] = {0}, compiled = 0;
  for (size_t i = 0; i < n; i++) {
    if (i) kr_buf_puts(b, ", ");
    kr_prune_json(&c[i], b);
    counts[c[i].verdict]++;
    compiled += c[i].compiled;
    if (c[i].verdict == KR_PRUNE_REFUSED || c[i].verdict == KR_PRUNE_NOT_APPLIED)
      log_line(s, ia, "round %d: pruned %s %s on %s: %s", round, idea->pass, c[i].label, idea->kernel, c[i].why);
  }
  kr_buf_puts(b, "]}");
  if (note) log_line(s, ia, "round %d: %s on %s: %s", round, idea->pass, idea->kernel, note);
  log_line(s, ia, "round %d: %s on %s: %zu schedules, %zu refused by the schedule checks, %zu compiled, %zu refused "
                  "by resources, %zu ranked out, %zu not compiled; timing the best %zu", round, idea->pass,
           idea->kernel, n + idea->refused.len, idea->refused.len, compiled, counts[KR_PRUNE_REFUSED],
           counts[KR_PRUNE_RANKED_OUT], counts[KR_PRUNE_NOT_COMPILED], counts[KR_PRUNE_KEPT]);
  for (size_t i = 0; i < n && c[i].verdict == KR_PRUNE_KEPT; i++) {
    KrIdeaVariant *v = kr_arena_alloc(ia, sizeof *v);
    for (size_t j = 0; j < n; j++)
      if (idea->variants.data[j].recipe == c[i].recipe) *v = idea->variants.data[j];
    KrBuf m = {0};
    kr_prune_json(&c[i], &m);
    v->model = kr_arena_strndup(ia, m.data, m.len);
    kr_buf_free(&m);
    v->run = c[i].run, v->run_s = c[i].apply_s;   /* the pruning made it: the candidate is this run */
    c[i].run = NULL;
    plan_variant(s, idea, v, ia, plan);
  }
}

/* Where the round's token counts come from: the server's usage field, or bytes / 4. */
static const char *tokens_source(const KrLlmRound *lr) {
  bool est = lr->prompt_estimated || lr->completion_estimated;
  bool rep = lr->prompt_reported || lr->completion_reported;
  if (est && rep) return "server usage where reported, else an estimate: bytes / 4";
  if (est) return "estimate: bytes / 4 (the server reported no usage)";
  return rep ? "server usage" : NULL;
}

/* Round `round` from the LLM: one request (plus repairs), ideas into *plan. */
static void llm_round(Search *s, int round, const char **seeds, size_t nseeds, KrArena *ia,
                      PlanList *plan) {
  KrLlmRoundInput in = {.source_path = s->spec->source, .build = &s->spec->build, .source_text = s->src_text,
                        .source_len = s->src_len, .profile = profile_text(s, ia),
                        .history = history_text(s, seeds, nseeds, ia),
                        .allow_lowering = s->o->allow_lowering, .max_repairs = s->o->max_repairs,
                        .keep_runs = true};
  KrLlmRound lr;
  KrStatus st = kr_llm_propose(s->o->llm, &in, ia, &lr);
  KrBuf b = {0};
  kr_buf_puts(&b, "\"proposer\": \"llm\", \"tokens\": {\"prompt\": ");
  if (lr.prompt_tokens >= 0) kr_buf_printf(&b, "%ld", lr.prompt_tokens);
  else kr_buf_puts(&b, "null");
  kr_buf_puts(&b, ", \"completion\": ");
  if (lr.completion_tokens >= 0) kr_buf_printf(&b, "%ld", lr.completion_tokens);
  else kr_buf_puts(&b, "null");
  kr_buf_puts(&b, "}, \"tokens_source\": ");
  kr_buf_json_str(&b, tokens_source(&lr));
  kr_buf_puts(&b, ", \"cost\": ");
  if (lr.cost >= 0) kr_buf_printf(&b, "%.6g", lr.cost);
  else kr_buf_puts(&b, "null");
  kr_buf_printf(&b, ", \"requests\": %d, \"rejected\": [", lr.requests);
  for (size_t i = 0; i < lr.rejected.len; i++) {
    if (i) kr_buf_puts(&b, ", ");
    kr_buf_json_str(&b, lr.rejected.data[i]);
  }
  kr_buf_puts(&b, "], \"error\": ");
  kr_buf_json_str(&b, lr.error);
  kr_buf_printf(&b, ", \"ideas\": %zu", lr.ideas.len);
  add_round(s, round, kr_arena_strndup(ia, b.data, b.len));
  kr_buf_free(&b);
  RoundRec *rr = &s->rounds.data[s->rounds.len - 1];
  rr->nrejected = lr.rejected.len;
  rr->rejected = kr_arena_alloc(s->a, (lr.rejected.len + 1) * sizeof *rr->rejected);
  for (size_t i = 0; i < lr.rejected.len; i++)
    rr->rejected[i] = kr_arena_strdup(s->a, lr.rejected.data[i]);
  if (s->o->progress) {
    for (size_t i = 0; i < lr.rejected.len; i++)
      s->o->progress(s->o->progress_ctx,
                     kr_arena_printf(ia, "round %d: llm reply rejected: %s", round,
                                     lr.rejected.data[i]));
  }
  if (st != KR_OK) {
    s->proposer_error = kr_arena_strdup(s->a, lr.error ? lr.error : "the request failed");
    kr_diag_pos(s->d, KR_DIAG_ERROR, NULL, 0, 0, "optimize: the LLM endpoint failed in round %d: %s",
                round, s->proposer_error);
    s->stop_reason = "llm request failed";
  }
  for (size_t i = 0; i < lr.ideas.len; i++) {
    KrIdea *idea = kr_arena_alloc(ia, sizeof *idea);
    memset(idea, 0, sizeof *idea);
    idea->pass = pass_of(lr.ideas.data[i].recipe, "apply(\"", ia);
    if (strcmp(idea->pass, "?") == 0) idea->pass = pass_of(lr.ideas.data[i].recipe, "try(\"", ia);
    idea->kernel = pass_of(lr.ideas.data[i].recipe, "kr.kernel(\"", ia);
    idea->reason = lr.ideas.data[i].reason;
    KrIdeaVariant v = {.label = kr_arena_printf(ia, "(llm idea %zu)", i + 1), .params_lua = NULL,
                       .recipe = lr.ideas.data[i].recipe, .run = lr.ideas.data[i].run,   /* the check made it */
                       .run_s = lr.ideas.data[i].apply_s};
    kr_vec_push(ia, &idea->variants, v);
    plan_variant(s, idea, &idea->variants.data[0], ia, plan);
  }
}

/* --profile: Nsight Compute on the round's first seed (the original in round 1). A failure is
 * recorded and the round goes on without a profile. */
static void profile_seed(Search *s, int round, const char *seed) {
  const char *path = NULL;
  for (size_t i = 0; seed && *seed && i < s->cands.len; i++)
    if (strcmp(s->cands.data[i].recipe, seed) == 0)
      path = kr_arena_printf(s->a, "%s/cand-%d.lua", s->o->out_dir, s->cands.data[i].id);
  KrProfileOptions po = {.recipe = path, .run = kept_run(s, seed), .arch = s->o->arch, .ncu = s->o->ncu};
  KrProfile *p = NULL;
  KrDiags *d = kr_diags_new();
  if (s->o->tick) s->o->tick(s->o->progress_ctx, round, 0, 1, "profiling with Nsight Compute");
  s->prof = NULL;
  if (kr_profile_run(s->spec, &po, s->a, &p, d) == KR_OK && p) {
    s->prof = p;
    s->prof_json = p->json;
    if (s->o->progress)
      s->o->progress(s->o->progress_ctx,
                     kr_arena_printf(s->a, "round %d: profile of %s: %s (%s)", round,
                                     path ? path : "the original", p->bound_name, p->why));
  } else {
    const char *why = first_error(d, s->a);
    KrBuf b = {0};
    kr_buf_puts(&b, "{\"error\": ");
    kr_buf_json_str(&b, why);
    kr_buf_puts(&b, "}");
    s->prof_json = kr_arena_strndup(s->a, b.data, b.len);
    kr_buf_free(&b);
    if (s->o->progress)
      s->o->progress(s->o->progress_ctx,
                     kr_arena_printf(s->a, "round %d: profiling failed, going on without: %s",
                                     round, why));
  }
  kr_diags_free(d);
}

/* A round in which every candidate failed to build gained nothing, so it ends the search as "no
 * gain" would, but under its own name and with the first build error: the usual cause is the
 * source or the toolchain, not the ideas, and the compiler's message says which. */
static void check_builds(Search *s, size_t first) {
  if (first == s->cands.len) return;
  for (size_t i = first; i < s->cands.len; i++)
    if (s->cands.data[i].status != CAND_BUILD_FAILED) return;
  s->stop_reason = "every candidate failed to build";
  s->stop_error = s->cands.data[first].error;
}

static KrStatus run_round(Search *s, int round, const char **seeds, size_t nseeds, bool *gain) {
  PlanList plan = {0};
  KrArena *ia = kr_arena_new();
  if (s->o->profile) profile_seed(s, round, nseeds ? seeds[0] : NULL);
  if (is_llm(s->o)) llm_round(s, round, seeds, nseeds, ia, &plan);
  else add_round(s, round, "\"proposer\": \"heuristic\", \"tokens\": {\"prompt\": 0, "
                           "\"completion\": 0}, \"cost\": null, \"rejected\": []");
  for (size_t i = 0; i < nseeds && !is_llm(s->o); i++) {
    KrHeuristicInput in = {.source_path = s->spec->source, .build = &s->spec->build, .source_text = s->src_text,
                           .source_len = s->src_len, .kernels = s->kernels,
                           .nkernels = s->nkernels, .seed_recipe = seeds[i], .seed_run = kept_run(s, seeds[i]),
                           .intensity = s->intensity, .allow_lowering = s->o->allow_lowering,
                           .output_tiles = s->output_tiles,
                           .reduction_length = s->reduction_length, .bound = s->prof ? s->prof->bound_name : NULL,
                           .spec = s->spec,
                           .seed = s->o->seed + (uint64_t)round * 1000 + i, .round = round};
    KrIdeaList ideas;
    if (kr_heuristic_propose(&in, ia, &ideas, s->d) != KR_OK) continue;
    for (size_t j = 0; j < ideas.len && !should_stop(s); j++)
      if (is_schedule_idea(&ideas.data[j])) prune_idea(s, round, &ideas.data[j], ia, &plan);
    for (size_t j = 0; j < ideas.len; j++)
      for (size_t b = 0; !is_schedule_idea(&ideas.data[j]) && b < ideas.data[j].variants.len &&
                         b < (size_t)s->o->branch; b++)
        plan_variant(s, &ideas.data[j], &ideas.data[j].variants.data[b], ia, &plan);
  }
  double before = s->best >= 0 ? s->cands.data[s->best].speedup : 0;
  size_t first = s->cands.len;
  /* Every candidate is made first (its recipe written and applied, once), so that --jobs can
   * build them all at once. */
  Made *made = kr_arena_alloc(ia, (plan.len + 1) * sizeof *made);
  double *apply_s = kr_arena_alloc(ia, (plan.len + 1) * sizeof *apply_s);
  KrStatus st = KR_OK;
  size_t nmade = 0;
  for (; nmade < plan.len && st == KR_OK; nmade++) {
    const char *path = kr_arena_printf(ia, "%s/cand-%zu.lua", s->o->out_dir, first + nmade + 1);
    KrIdeaVariant *v = plan.data[nmade].v;
    st = kr_file_write_atomic(path, v->recipe, strlen(v->recipe), s->d);
    make_candidate(s, path, v, ia, &made[nmade], &apply_s[nmade]);
  }
  if (st == KR_OK && s->o->jobs > 1 && plan.len > 1 && !should_stop(s))
    prepare_parallel(s, round, made, plan.len, ia);
  for (size_t k = 0; k < plan.len && st == KR_OK && !should_stop(s); k++) {
    if (s->o->tick) s->o->tick(s->o->progress_ctx, round, k, plan.len, "verifying and timing");
    double t = kr_now_s();
    st = run_candidate(s, round, k + 1, plan.len, plan.data[k].idea, plan.data[k].v,
                       (int)(first + k + 1), &made[k], apply_s[k]);
    /* Recorded: a verified candidate's run is kept, for a round that starts from it; the others'
     * are not needed again, nor their memory in the children. */
    const Cand *c = &s->cands.data[s->cands.len - 1];   /* run_candidate records it, whatever happens */
    if (c->verified && made[k].run) keep_run(s, c->recipe, made[k].run), made[k].run = NULL;
    unmake(&made[k]);
    s->done_s += kr_now_s() - t + apply_s[k];
    s->ndone++;
  }
  for (size_t k = 0; k < nmade; k++) unmake(&made[k]);
  for (size_t k = nmade; k < plan.len; k++)   /* not made: a run the pruning or the check made goes */
    if (plan.data[k].v->run) kr_recipe_run_free(plan.data[k].v->run), plan.data[k].v->run = NULL;
  if (s->o->tick) s->o->tick(s->o->progress_ctx, round, plan.len, plan.len, NULL);
  *gain = false;
  for (size_t i = first; i < s->cands.len; i++) {
    const Cand *c = &s->cands.data[i];
    if (c->verified && (!s->o->gpu || (c->timed && c->speedup > before))) *gain = true;
  }
  /* An LLM round that gave nothing usable is not the end: its rejections go into the next
   * prompt. The heuristic, deterministic, would propose nothing again. */
  if (plan.len == 0 && !s->stop_reason && !is_llm(s->o))
    s->stop_reason = "no applicable pass left to propose";
  if (plan.len == 0 && is_llm(s->o)) *gain = true;
  if (!s->stop_reason) check_builds(s, first);
  kr_arena_free(ia);
  return st;
}

/* ---- The original ----------------------------------------------------------------------------------- */

/* Verification's words for a reference that fails, less what only verify's own report needs
 * (here the reference is the original, and there is no verification to stop). */
static const char *run_failure(const char *e, KrArena *a) {
  static const char head[] = "the reference failed to run: ";
  static const char tail[] = "; nothing can be checked against the reference, so verification stopped";
  size_t n = strlen(e);
  if (strncmp(e, head, sizeof head - 1) == 0) e += sizeof head - 1, n -= sizeof head - 1;
  if (n >= sizeof tail - 1 && strcmp(e + n - (sizeof tail - 1), tail) == 0) n -= sizeof tail - 1;
  return kr_arena_strndup(a, e, n);
}

/* Stops the search: the error names the problem and says what the original did; the build's
 * other messages follow as notes. */
static void original_failed(Search *s, const char *what, const char *why, const KrDiags *build) {
  s->stop_reason = "original failed";
  s->stop_error = kr_arena_printf(s->a, "%s: %s", what, why);
  kr_diag_pos(s->d, KR_DIAG_ERROR, s->o->problem, 0, 0, "%s", s->stop_error);
  bool first = true;   /* the first error is in the message already */
  for (size_t i = 0; build && i < build->items.len; i++) {
    const KrDiag *g = &build->items.data[i];
    if (first && g->severity == KR_DIAG_ERROR) first = false;
    else kr_diag_pos(s->d, KR_DIAG_NOTE, g->path, g->line, g->col, "%s", g->message);
  }
}

/* Every candidate is verified against the original, so an original that does not build or run
 * on the device would fail each of them for its own reason: the search stops before round 1 and
 * says so. The original is verified against itself, as a candidate would be against it, in order
 * (a shuffled order only matters for a rewrite); only the reference's side matters here, whose
 * failure (a crash, a hang, a race) is the report's error. `built`: it built for the device, and
 * `bd` holds the build's messages. */
static void check_original(Search *s, bool built, const KrDiags *bd) {
  const KrOptimizeOptions *o = s->o;
  const char *where = o->device == KR_DEVICE_CUDA ? "the GPU" : "the CPU emulator";
  if (o->stop && *o->stop) {   /* Ctrl-C reaches the compilers too: not the source's fault */
    s->stop_reason = "interrupted";
    return;
  }
  if (!built) {
    original_failed(s, kr_arena_printf(s->a, "the original kernel does not build for %s", where),
                    first_error_at(bd, s->a), bd);
    return;
  }
  KrArena *sa = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrVerifyOptions vo = {.device = o->device, .arch = o->arch, .candidate = s->spec->source,
                        .seeds = o->verify_seeds, .timeout_s = o->timeout_s};
  KrVerifyReport *rep = NULL;
  kr_verify(s->spec, &vo, sa, &rep, d);
  if (o->stop && *o->stop) s->stop_reason = "interrupted";
  else if (rep->error)
    original_failed(s, kr_arena_printf(s->a, "the original kernel does not run on %s", where),
                    run_failure(rep->error, s->a), NULL);
  else if (o->progress)
    o->progress(o->progress_ctx, kr_arena_printf(sa, "the original: builds and runs on %s (%zu "
                                                     "case%s, %.1f s)", where, rep->cases.len,
                                                 rep->cases.len == 1 ? "" : "s", rep->total_s));
  kr_diags_free(d);
  kr_arena_free(sa);
}

/* ---- The best recipe's steps ------------------------------------------------------------------------ */

/* On the GPU, once the search is over: every prefix of the best recipe verified and timed in one
 * process (kr_bench_steps, as `krewrite bench --steps`), so the report shows what each pass of it
 * bought. Not after an interruption, nor without a timed best. */
static void time_best_steps(Search *s) {
  if (!s->o->gpu || s->best < 0 || !s->cands.data[s->best].timed || (s->o->stop && *s->o->stop)) return;
  const char *path = kr_arena_printf(s->a, "%s/cand-%d.lua", s->o->out_dir, s->cands.data[s->best].id);
  if (s->o->tick) s->o->tick(s->o->progress_ctx, s->rounds_run, 0, 1, "timing the best recipe's steps");
  KrStepsReport *r = NULL;
  KrDiags *d = kr_diags_new();
  const KrRecipeRun *run = kept_run(s, s->cands.data[s->best].recipe);   /* the best's, as it was made */
  if (run) {
    KrStepsOptions so = {.run = run, .device = s->o->device, .arch = s->o->arch, .gpu = true,
                         .timing = kr_bench_options_default()};
    kr_bench_steps(s->spec, &so, s->a, &r, d);
  } else kr_diag_pos(s->d, KR_DIAG_WARNING, path, 0, 0, "optimize: the best candidate's run was not kept, so its steps "
                                                        "are not timed (a bug: please report it)");
  if (r) {
    KrBuf b = {0};
    kr_bench_steps_json(r, &b);
    s->best_steps = kr_arena_strndup(s->a, b.data, b.len);
    kr_buf_free(&b);
    if (s->o->progress)
      s->o->progress(s->o->progress_ctx, kr_arena_printf(s->a, "the best recipe's steps: %zu timed of %zu%s%s",
                                                         r->timed_steps, r->steps.len ? r->steps.len - 1 : 0,
                                                         r->error ? ": " : "", r->error ? r->error : ""));
  }
  kr_diags_free(d);
}

/* ---- Entry ------------------------------------------------------------------------------------------ */

static KrStatus setup(Search *s) {
  KrArena *a = s->a;
  if (kr_spec_load_with(s->o->problem, s->o->build, a, &s->spec, s->d) != KR_OK) return KR_ERR;
  if (kr_file_read(s->spec->source, a, &s->src_text, &s->src_len, s->d) != KR_OK) return KR_ERR;
  kr_heuristic_kernels(s->spec, s->src_text, s->src_len, s->o->build, a, &s->kernels, &s->nkernels);
  s->intensity = kr_heuristic_intensity(s->spec, a);
  s->output_tiles = kr_heuristic_output_tiles(s->spec, a);
  s->reduction_length = kr_heuristic_reduction_length(s->spec, a);
  /* The original's build: its resources for the proposer and the report, and the check that it
   * builds and runs at all. */
  KrDiags *cd = kr_diags_new();
  KrVerifyOptions vo = {.device = s->o->device, .arch = s->o->arch, .candidate = s->spec->source,
                        .compile_report = true};
  KrStatus built = kr_verify_prepare(s->spec, &vo, a, &s->orig_compile, &s->orig_resources, cd);
  if (!s->o->dry_run) check_original(s, built == KR_OK, cd);
  kr_diags_free(cd);
  if (s->o->dry_run) return KR_OK;
  /* A best.json from an earlier run in the same folder would not belong to this one. */
  unlink(kr_arena_printf(a, "%s/best.json", s->o->out_dir));
  return write_trajectory(s);
}

/* --dry-run: what round 1 would ask (llm: the prompt) or try (heuristic: the ideas). */
static KrStatus dry_run(Search *s, KrOptimizeResult *res) {
  KrBuf b = {0};
  KrStatus st = KR_OK;
  if (is_llm(s->o)) {
    KrLlmRoundInput in = {.source_path = s->spec->source, .build = &s->spec->build, .source_text = s->src_text,
                          .source_len = s->src_len, .allow_lowering = s->o->allow_lowering,
                          .profile = profile_text(s, s->a)};
    const char *sys, *user;
    kr_llm_prompt(&in, s->a, &sys, &user);
    kr_buf_printf(&b, "=== system ===\n%s\n=== user ===\n%s", sys, user);
  } else {
    KrHeuristicInput in = {.source_path = s->spec->source, .build = &s->spec->build, .source_text = s->src_text,
                           .source_len = s->src_len, .kernels = s->kernels,
                           .nkernels = s->nkernels, .intensity = s->intensity,
                           .output_tiles = s->output_tiles, .reduction_length = s->reduction_length,
                           .allow_lowering = s->o->allow_lowering, .spec = s->spec, .seed = s->o->seed + 1000,
                           .round = 1};
    KrIdeaList ideas;
    st = kr_heuristic_propose(&in, s->a, &ideas, s->d);
    for (size_t j = 0; st == KR_OK && j < ideas.len; j++) {
      const KrIdea *idea = &ideas.data[j];
      if (idea->grid)
        kr_buf_printf(&b, "%s on %s: a grid of %zu schedules (%zu more refused by the schedule checks), "
                          "pruned by resources and ranked by the model when the search runs; the first "
                          "in the grid's order:\n", idea->pass, idea->kernel, idea->variants.len,
                      idea->refused.len);
      for (size_t v = 0; v < idea->variants.len && v < (size_t)s->o->branch; v++)
        kr_buf_printf(&b, "%s %s on %s: %s\n", idea->pass, idea->variants.data[v].label, idea->kernel,
                      idea->reason);
    }
    if (st == KR_OK && !ideas.len) kr_buf_puts(&b, "no applicable pass to propose\n");
  }
  res->dry_run_text = kr_arena_strndup(s->a, b.data ? b.data : "", b.len);
  res->stop_reason = "dry run";
  kr_buf_free(&b);
  return st;
}

KrStatus kr_optimize_run(const KrOptimizeOptions *o, KrArena *arena, KrOptimizeResult *res,
                         KrDiags *diags) {
  Search s = {.o = o, .a = arena, .d = diags, .best = -1, .t0 = kr_now_s(), .applies0 = kr_recipe_applies()};
  memset(res, 0, sizeof *res);
  res->best_id = -1;
  if (setup(&s) != KR_OK) return KR_ERR;
  if (o->dry_run) return dry_run(&s, res);
  size_t keep = o->keep > 0 ? (size_t)o->keep : 1;
  const char **seeds = kr_arena_alloc(arena, keep * sizeof *seeds);
  size_t nseeds = 1;   /* round 1 starts from the original source: one empty seed */
  KrStatus st = KR_OK;
  bool go = !s.stop_reason;   /* the original may have stopped it already */
  for (int round = 1; go && round <= o->rounds && st == KR_OK && !should_stop(&s); round++) {
    bool gain;
    s.rounds_run = round;
    st = run_round(&s, round, seeds, nseeds, &gain);
    if (s.stop_reason) break;
    if (!gain) s.stop_reason = "no gain";
    else if (round == o->rounds) s.stop_reason = "round limit";
    else {
      /* An LLM round with nothing usable leaves the seeds as they were. */
      size_t tried = 0;
      for (size_t i = 0; i < s.cands.len; i++) tried += s.cands.data[i].round == round;
      if (tried) nseeds = next_seeds(&s, round, seeds, keep);
      drop_runs(&s, seeds, nseeds);
    }
    if (s.stop_reason) break;
    if (nseeds == 0) s.stop_reason = "no verified candidate to build on";
  }
  if (!s.stop_reason) s.stop_reason = st == KR_OK ? "round limit" : "error";
  if (st == KR_OK) time_best_steps(&s);
  drop_runs(&s, NULL, SIZE_MAX);
  if (write_trajectory(&s) != KR_OK) st = KR_ERR;
  for (size_t r = 0; r < s.rounds.len; r++) kr_buf_free(&s.rounds.data[r].pruning);
  res->rounds_run = s.rounds_run;
  /* For the summary line: the reason, and the error behind it. */
  res->stop_reason = s.stop_error ? kr_arena_printf(arena, "%s: %s", s.stop_reason, s.stop_error)
                                  : s.stop_reason;
  res->stop_error = s.stop_error;
  res->proposer_error = s.proposer_error;
  res->candidates = s.cands.len;
  for (size_t i = 0; i < s.cands.len; i++) {
    res->verified += s.cands.data[i].verified;
    res->timed += s.cands.data[i].timed;
  }
  if (s.best >= 0) {
    res->best_id = s.cands.data[s.best].id;
    res->best_recipe = s.cands.data[s.best].recipe;
    res->best_speedup = s.cands.data[s.best].speedup;
  }
  return st;
}
