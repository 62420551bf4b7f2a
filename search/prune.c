/* search/prune.c: resource pruning and the ranking model of schedule candidates (search/prune.h):
 * apply each variant for its shape, compile the most promising with nvcc (in child processes,
 * which fill nvcc's cache; the parent then reads every report from the cache), refuse what does
 * not fit, keep the best. */
#include "search/prune.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc.h"
#include "recipes/recipe.h"

/* ---- Limits and the model ----------------------------------------------------------------------- */

const char *kr_prune_check(const KrKernelResources *r, int threads, int dyn_shared, KrArena *a) {
  if (r->spill_stores > 0 || r->spill_loads > 0)
    return kr_arena_printf(a, "spills registers (%d B spill stores, %d B spill loads at %d registers)",
                           r->spill_stores, r->spill_loads, r->registers);
  if (r->registers > KR_PRUNE_MAX_REGISTERS)
    return kr_arena_printf(a, "%d registers a thread; sm_90 has at most %d", r->registers,
                           KR_PRUNE_MAX_REGISTERS);
  if (threads > 0 && (long)threads * r->registers > KR_PRUNE_REGISTERS_PER_SM)
    return kr_arena_printf(a, "%d threads x %d registers = %ld registers a block; an SM has %d, so the "
                              "launch would fail", threads, r->registers, (long)threads * r->registers,
                           KR_PRUNE_REGISTERS_PER_SM);
  if (r->smem > KR_PRUNE_STATIC_SHARED)
    return kr_arena_printf(a, "%d B of static shared memory; a block may have %d", r->smem, KR_PRUNE_STATIC_SHARED);
  if (r->smem + dyn_shared > KR_PRUNE_SHARED_PER_SM)
    return kr_arena_printf(a, "%d B of shared memory a block (%d B dynamic); an SM has %d, so the launch would fail",
                           r->smem + dyn_shared, dyn_shared, KR_PRUNE_SHARED_PER_SM);
  return NULL;
}

/* Blocks of `s` an SM holds by threads, and, when r is known, by registers and shared memory. */
static int blocks_per_sm(const KrPruneShape *s, const KrKernelResources *r) {
  if (s->threads <= 0) return 0;
  int n = KR_PRUNE_THREADS_PER_SM / s->threads;
  if (s->dyn_shared > 0 && KR_PRUNE_SHARED_PER_SM / s->dyn_shared < n) n = KR_PRUNE_SHARED_PER_SM / s->dyn_shared;
  if (r) {
    int warps = (s->threads + 31) / 32, regs = (r->registers + 7) / 8 * 8;
    int by_regs = regs > 0 ? KR_PRUNE_REGISTERS_PER_SM / (warps * 32 * regs) : n;
    int by_smem = r->smem + s->dyn_shared > 0 ? KR_PRUNE_SHARED_PER_SM / (r->smem + s->dyn_shared) : n;
    if (by_regs < n) n = by_regs;
    if (by_smem < n) n = by_smem;
  }
  return n;
}

/* The SMs a contraction's tiles leave idle: its blocks at the benchmark sizes are its outputs over a
 * tile's, times split_k's parts. */
static double idle_term(const KrPruneShape *s) {
  if (s->rows || s->grid_outputs <= 0 || s->bm <= 0 || s->bn <= 0) return 0;
  double blocks = s->grid_outputs / ((double)s->bm * s->bn) * (s->parts > 1 ? s->parts : 1);
  return blocks < KR_PRUNE_SMS ? -8.0 * (1 - blocks / KR_PRUNE_SMS) : 0;
}

/* A contraction on the tensor cores. Its blocks hold their SM alone (a deep pipeline of large tiles in
 * dynamic shared memory), so the threads' and blocks' terms of the SIMT model do not apply; the H200's
 * sweeps (bench/results/tensor-2026-12-02b.json, -03.json, -03b.json, -03c.json) rank them by API
 * (bf16 at 128 x 128 x 64: wgmma about 2x mma.sync, mma.sync 1.4x WMMA), then by the reuse of the
 * block tile (tf32 wgmma, 4 stages: 256 x 128 0.47 ms, 128 x 128 0.82), the width of the warpgroup's
 * instruction (the side wgmma reads from shared memory: 256 x 128 0.25 ms against 128 x 256 0.31 in
 * bf16) or the warp tile's reuse (mma.sync), the stages (tf32 256 x 128: 4 stages 0.47 ms, 3 0.54),
 * and the products a term (3xtf32's three). */
static double tc_score(const KrPruneShape *s) {
  double score = s->mma == KR_PRUNE_WGMMA ? 4 : s->mma == KR_PRUNE_MMA ? 2 : 0;
  if (s->bm > 0 && s->bn > 0) score += log2((double)s->bm * s->bn / (s->bm + s->bn));
  if (s->mma == KR_PRUNE_WGMMA && s->wm > 0 && s->wn > 0) score += log2(s->wm > s->wn ? s->wm : s->wn) / 4;
  else if (s->wm > 0 && s->wn > 0) score += log2((double)s->wm * s->wn / (s->wm + s->wn)) / 4;
  score += 0.5 * ((s->stages < 4 ? (s->stages > 1 ? s->stages : 1) : 4) - 1);
  if (s->bk > 0) score += log2((double)s->bk) / 10;
  /* 3xtf32 issues three products a term (tf32 3.7x faster at matmul's best tiles: 0.459 ms against
   * 1.628, README), which no tile choice makes up. */
  if (s->products > 1) score -= log2(s->products);
  return score + idle_term(s);
}

double kr_prune_score(const KrPruneShape *s, const KrKernelResources *r) {
  if (s->mma != KR_PRUNE_SIMT) return tc_score(s);
  double score = 0;
  int t = s->threads;
  if (t >= 128 && t <= 256) score += 2;
  else if (t >= 64 && t <= 512) score += 1;
  if (blocks_per_sm(s, r) >= 2) score += 2;
  if (s->tm > 0 && s->tn > 0) score += log2((double)s->tm * s->tn) / 6;
  if (s->bm > 0 && s->bn > 0) score += log2((double)s->bm * s->bn / (s->bm + s->bn)) / 6;
  if (s->stages >= 2) score += 0.5;
  if (s->bk > 0) score += log2((double)s->bk) / 20;
  score += 4.0 * s->fused;   /* a row reduction: the sweeps over memory it saves (KrPruneShape.fused) */
  if (s->rows && s->grid_rows > 0) {
    /* The blocks of the launch: a warp a row, 32 rows a block (the column layout), or a block a row
     * (times split_rows' parts). */
    double blocks = s->warp     ? s->grid_rows / (t / 32 > 0 ? t / 32 : 1)
                    : s->column ? ceil(s->grid_rows / 32)
                                : s->grid_rows * (s->parts > 1 ? s->parts : 1);
    if (blocks < KR_PRUNE_SMS) score -= 8.0 * (1 - blocks / KR_PRUNE_SMS);   /* the SMs it leaves idle */
    /* Reads strided across the rows' layout cost more than any occupancy buys back (colsum: a block a
     * column, 0.95 ms against 0.32 by 32 columns a block; bench/results/search-2026-12-05.json). */
    if (s->strided) score -= 6.0;
    /* The column layout's launch has 32 times fewer blocks (colsum's 4096 columns: 128 blocks), one
     * or a few an SM, and then the block's size is the SM's share of threads to keep loads in flight:
     * the more threads, up to what an SM holds (matvec_t ran 0.26 ms with 512 threads, 0.32 with 256). */
    if (s->column && t > 0) {
      double per_sm = ceil(blocks / KR_PRUNE_SMS), fit = blocks_per_sm(s, r);
      if (fit > 0 && per_sm > fit) per_sm = fit;
      score += 6.0 * fmin(1.0, per_sm * t / KR_PRUNE_THREADS_PER_SM);
    }
  }
  return score + idle_term(s);
}

const char *kr_prune_verdict_name(KrPruneVerdict v) {
  switch (v) {
  case KR_PRUNE_KEPT: return "kept";
  case KR_PRUNE_REFUSED: return "refused";
  case KR_PRUNE_RANKED_OUT: return "ranked out";
  case KR_PRUNE_NOT_COMPILED: return "not compiled";
  default: return "not applied";
  }
}

/* The end of the last ":LINE:COL: " in s (where a located reason starts), or NULL. */
static const char *after_location(const char *s) {
  const char *r = NULL;
  for (const char *p = strchr(s, ':'); p; p = strchr(p + 1, ':')) {
    const char *q = p + 1;
    if (*q < '0' || *q > '9') continue;
    while (*q >= '0' && *q <= '9') q++;
    if (*q++ != ':' || *q < '0' || *q > '9') continue;
    while (*q >= '0' && *q <= '9') q++;
    if (q[0] == ':' && q[1] == ' ') r = q + 2;
  }
  return r;
}

bool kr__pass_refusal(const char *msg, KrArena *a, KrPassRefusal *out) {
  const char *p = strstr(msg, "pass '"), *k = strstr(msg, "does not apply to kernel '"), *reason = after_location(msg);
  if (!p || !k || !reason || k < p) return false;
  p += 6, k += 26;
  out->pass = kr_arena_strndup(a, p, strcspn(p, "'"));
  out->kernel = kr_arena_strndup(a, k, strcspn(k, "'"));
  const char *at = k + strlen(out->kernel) + 3;   /* past "': " */
  if (at + 2 > reason) return false;
  out->where = kr_arena_strndup(a, at, (size_t)(reason - at - 2));
  out->reason = kr_arena_strdup(a, reason);
  return true;
}

/* ---- Shapes ---------------------------------------------------------------------------------------- */

static bool json_true(cJSON *o, const char *name) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, name));
}

static int json_int(cJSON *o, const char *name, int at) {
  cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (at >= 0) v = cJSON_GetArrayItem(v, at);
  return cJSON_IsNumber(v) ? (int)v->valuedouble : 0;
}

bool kr_prune_shape_json(const char *schedule_json, const char *block, KrPruneShape *s) {
  cJSON *j = cJSON_Parse(schedule_json);
  if (!j) return false;
  *s = (KrPruneShape){.bm = json_int(j, "block", 0), .bn = json_int(j, "block", 1), .bk = json_int(j, "k", -1),
                      .tm = json_int(j, "thread", 0), .tn = json_int(j, "thread", 1),
                      .stages = json_int(j, "stages", -1),
                      .rows = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "layout")),
                      .fused = json_true(j, "online") + json_true(j, "welford"),
                      .parts = json_int(j, "row_parts", -1)};
  if (!s->rows) s->parts = json_int(j, "parts", -1);
  cJSON *tc = cJSON_GetObjectItemCaseSensitive(j, "tensor_core");
  if (cJSON_IsObject(tc)) {
    cJSON *api = cJSON_GetObjectItemCaseSensitive(tc, "api");
    const char *an = cJSON_IsString(api) ? api->valuestring : "";
    s->mma = !strcmp(an, "wgmma") ? KR_PRUNE_WGMMA : !strcmp(an, "mma") ? KR_PRUNE_MMA : KR_PRUNE_WMMA;
    s->wm = json_int(tc, "warp", 0), s->wn = json_int(tc, "warp", 1);
    cJSON *prec = cJSON_GetObjectItemCaseSensitive(tc, "precision");
    s->products = cJSON_IsString(prec) && !strcmp(prec->valuestring, "3xtf32") ? 3 : 1;
  }
  cJSON *lay = cJSON_GetObjectItemCaseSensitive(j, "layout"), *rc = cJSON_GetObjectItemCaseSensitive(j, "row_cache");
  s->warp = cJSON_IsString(lay) && !strcmp(lay->valuestring, "warp");
  s->column = cJSON_IsString(lay) && !strcmp(lay->valuestring, "column");
  if (cJSON_IsObject(rc)) {
    s->dyn_shared = json_int(rc, "shared", -1) * 1024;
    /* A kept row: softmax on the H200 ran 0.634 ms with the cluster cache alone and 0.796 ms with
     * online_softmax too (bench/results/reduce-2026-12-02d.json, call1). */
    if (2 * s->dyn_shared <= KR_PRUNE_SHARED_PER_SM) s->fused += 2 - 1.5 * json_true(j, "online");
  }
  cJSON_Delete(j);
  int x = 0, y = 1, z = 1;
  if (block && sscanf(block, "dim3(%d, %d, %d)", &x, &y, &z) >= 1) s->threads = x * y * z;
  return true;
}

/* The shape from the last schedule record on the kernel: its schedule and its launch's block. */
static bool shape_of(const KrRecipeRun *run, const char *kernel, KrPruneShape *s) {
  for (size_t i = run->records.len; i-- > 0;) {
    const KrPassRecord *r = &run->records.data[i];
    if (!r->schedule_json || strcmp(r->kernel, kernel) != 0) continue;
    if (!kr_prune_shape_json(r->schedule_json, r->launch.block, s)) return false;
    /* A contraction's tiles beyond 48 KiB (and tensor_core's) are dynamic shared memory: a number
     * of bytes in the launch, which ptxas's static count leaves out. */
    char *end = NULL;
    long bytes = r->launch.shmem ? strtol(r->launch.shmem, &end, 10) : 0;
    if (s->dyn_shared == 0 && end && *end == '\0' && bytes > 0) s->dyn_shared = (int)bytes;
    return true;
  }
  return false;
}

/* ---- Compiling ---------------------------------------------------------------------------------------- */

typedef struct Work {
  const KrPruneOptions *o;
  KrPruneCand *c;
  const char **text;       /* each variant's rewritten source; NULL: it did not apply */
  size_t *len;
} Work;

typedef struct Child {
  const Work *w;
  size_t i;
} Child;

static KrStatus compile(const Work *w, size_t i, KrArena *a, KrCubin *out, KrDiags *d) {
  KrNvccOptions no = {.arch = w->o->arch, .build = w->o->build};
  return kr_nvcc_compile(w->o->source_path, w->text[i], w->len[i], &no, a, out, d);
}

/* In a child: compile into nvcc's cache; the byte sent back is only a sign of life. */
static void compile_child(void *ctx, int fd) {
  const Child *ch = ctx;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrCubin cubin;
  char ok = compile(ch->w, ch->i, a, &cubin, d) == KR_OK;
  ssize_t n = write(fd, &ok, 1);
  (void)n;
  kr_diags_free(d);
  kr_arena_free(a);
}

/* Compiles the variants idx[0..n) at once in child processes. Trouble here costs only time: the
 * parent compiles whatever the cache lacks itself, and reports its errors. */
static void compile_parallel(const Work *w, const size_t *idx, size_t n, KrArena *a) {
  int *pid = kr_arena_alloc(a, n * sizeof *pid), *fd = kr_arena_alloc(a, n * sizeof *fd);
  Child *ch = kr_arena_alloc(a, n * sizeof *ch);
  for (size_t k = 0; k < n; k++) {
    ch[k] = (Child){w, idx[k]};
    KrDiags *d = kr_diags_new();
    if (kr_proc_fork(compile_child, &ch[k], "compile a candidate", &pid[k], &fd[k], d) != KR_OK) pid[k] = -1;
    kr_diags_free(d);
  }
  double deadline = w->o->deadline > 0 ? w->o->deadline : kr_now_s() + 600;
  for (size_t k = 0; k < n; k++) {
    if (pid[k] <= 0) continue;
    char ok;
    if (kr_proc_read_record(fd[k], &ok, 1, deadline) < 0) kill(pid[k], SIGKILL);
    close(fd[k]);
    waitpid(pid[k], NULL, 0);
  }
}

/* The report of `kernel` among the cubin's kernels: by its demangled name, or the only one. */
static const KrKernelResources *kernel_report(const KrCubin *cb, const char *kernel) {
  size_t n = strlen(kernel);
  for (size_t i = 0; i < cb->kernels.len; i++) {
    const char *dm = cb->kernels.data[i].demangled ? cb->kernels.data[i].demangled : cb->kernels.data[i].name;
    if (strncmp(dm, kernel, n) == 0 && (dm[n] == '(' || dm[n] == '<' || dm[n] == '\0')) return &cb->kernels.data[i];
  }
  return cb->kernels.len == 1 ? &cb->kernels.data[0] : NULL;
}

static void judge(const Work *w, size_t i, KrArena *a) {
  KrPruneCand *c = &w->c[i];
  KrDiags *d = kr_diags_new();
  KrCubin cb;
  c->compiled = true;
  if (compile(w, i, a, &cb, d) != KR_OK) {
    const char *m = kr_diags_first_error(d);
    c->verdict = KR_PRUNE_REFUSED;
    c->why = kr_arena_printf(a, "nvcc refused it: %s", m ? m : "unknown error");
  } else {
    const KrKernelResources *r = kernel_report(&cb, w->o->kernel);
    if (!r) {
      c->verdict = KR_PRUNE_REFUSED;
      c->why = kr_arena_printf(a, "ptxas reported no kernel '%s'", w->o->kernel);
    } else {
      c->res = *r;
      c->why = kr_prune_check(r, c->shape.threads, c->shape.dyn_shared, a);
      if (c->why) c->verdict = KR_PRUNE_REFUSED;
      else c->score = kr_prune_score(&c->shape, r);
    }
  }
  kr_diags_free(d);
}

/* ---- Ranking ------------------------------------------------------------------------------------------ */

typedef struct Order {
  const KrPruneCand *c;
  size_t *pos;             /* each candidate's place in bound order */
} Order;

/* Comparators: negative when candidate i goes before j. */
static int by_bound(const Order *o, size_t i, size_t j) {
  if (o->c[i].bound != o->c[j].bound) return o->c[i].bound > o->c[j].bound ? -1 : 1;
  return i < j ? -1 : i > j;
}

static int by_score(const Order *o, size_t i, size_t j) {
  if (o->c[i].score != o->c[j].score) return o->c[i].score > o->c[j].score ? -1 : 1;
  return o->pos[i] < o->pos[j] ? -1 : o->pos[i] > o->pos[j];
}

static int kept_first(const Order *o, size_t i, size_t j) {
  bool ki = o->c[i].verdict == KR_PRUNE_KEPT, kj = o->c[j].verdict == KR_PRUNE_KEPT;
  if (ki != kj) return ki ? -1 : 1;
  if (ki) return o->c[i].rank - o->c[j].rank;
  return o->pos[i] < o->pos[j] ? -1 : o->pos[i] > o->pos[j];
}

/* A stable insertion sort of indices (a grid has at most a few hundred variants). */
static void sort_idx(size_t *idx, size_t n, int (*cmp)(const Order *, size_t, size_t), const Order *o) {
  for (size_t i = 1; i < n; i++) {
    size_t x = idx[i], k = i;
    for (; k > 0 && cmp(o, x, idx[k - 1]) < 0; k--) idx[k] = idx[k - 1];
    idx[k] = x;
  }
}

/* Indices of the fitting candidates (scored, not refused), best first. */
static size_t fitting(const KrPruneCand *c, size_t n, size_t *out, const Order *ord) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(c[i].score) && c[i].verdict != KR_PRUNE_REFUSED && c[i].verdict != KR_PRUNE_NOT_APPLIED) out[m++] = i;
  sort_idx(out, m, by_score, ord);
  return m;
}

/* Applies every variant: its shape, its rewritten text, its bound. */
static void prepare(Work *w, size_t n, KrArena *a) {
  for (size_t i = 0; i < n; i++) {
    KrPruneCand *c = &w->c[i];
    c->score = NAN;
    c->verdict = KR_PRUNE_NOT_COMPILED;
    c->run = NULL;
    KrRecipeOptions ro;
    kr_recipe_options_init(&ro, a);
    ro.build = w->o->build;
    ro.keep_doc = w->o->keep_runs;
    KrDiags *d = kr_diags_new();
    KrRecipeRun *run = NULL;
    double t = kr_now_s();
    KrStatus st = kr_recipe_apply("prune.lua", c->recipe, strlen(c->recipe), w->o->source_path, w->o->source_text,
                                  w->o->source_len, &ro, &run, d);
    c->apply_s = kr_now_s() - t;
    if (st != KR_OK) {
      const char *m = kr_diags_first_error(d);
      c->verdict = KR_PRUNE_NOT_APPLIED;
      c->why = kr_arena_printf(a, "the recipe does not apply: %s", m ? m : "unknown error");
    } else {
      c->shaped = shape_of(run, w->o->kernel, &c->shape);
      c->shape.grid_rows = w->o->rows;
      if (c->shape.rows) c->shape.strided = c->shape.column != w->o->across;
      c->shape.grid_outputs = w->o->outputs;
      c->bound = c->shaped ? kr_prune_score(&c->shape, NULL) : 0;
      w->text[i] = kr_arena_strndup(a, run->output_text, run->output_len);
      w->len[i] = run->output_len;
    }
    if (run && w->o->keep_runs) c->run = run;
    else if (run) kr_recipe_run_free(run);
    kr_diags_free(d);
  }
}

/* The score the kept ones must beat: the keep-th best so far, or NaN while fewer fit (a score may
 * be negative: a row schedule that leaves SMs idle). */
static double threshold(const KrPruneCand *c, size_t n, size_t keep, size_t *scratch, const Order *ord) {
  size_t m = fitting(c, n, scratch, ord);
  return m >= keep && keep > 0 ? c[scratch[keep - 1]].score : NAN;
}

/* Compiles in bound order, a batch of `jobs` at a time, while a variant left could still be kept;
 * false when the deadline stopped it first. */
static bool compile_best(const Work *w, size_t n, const size_t *order, const Order *ord, KrArena *a) {
  size_t jobs = w->o->jobs > 1 ? (size_t)w->o->jobs : 1, next = 0;
  size_t *batch = kr_arena_alloc(a, (jobs + 1) * sizeof *batch), *scratch = kr_arena_alloc(a, (n + 1) * sizeof *scratch);
  while (next < n) {
    if (w->o->deadline > 0 && kr_now_s() >= w->o->deadline) return false;
    double bar = threshold(w->c, n, w->o->keep, scratch, ord);
    size_t nb = 0;
    for (; next < n && nb < jobs; next++) {
      const KrPruneCand *c = &w->c[order[next]];
      if (c->verdict == KR_PRUNE_NOT_APPLIED) continue;
      if (!isnan(bar) && c->bound <= bar) {
        next = n;
        break;
      }
      batch[nb++] = order[next];
    }
    if (nb > 1) compile_parallel(w, batch, nb, a);
    for (size_t k = 0; k < nb; k++) judge(w, batch[k], a);
  }
  return true;
}

/* Verdicts and reasons once the scores are known; without nvcc the bound is the score. */
static void decide(KrPruneCand *c, size_t n, size_t keep, const Order *ord, bool no_nvcc, bool in_time,
                   KrArena *a) {
  size_t *fit = kr_arena_alloc(a, (n + 1) * sizeof *fit);
  size_t m = fitting(c, n, fit, ord);
  for (size_t r = 0; r < m; r++) {
    KrPruneCand *x = &c[fit[r]];
    x->rank = (int)r + 1;
    x->verdict = r < keep ? KR_PRUNE_KEPT : KR_PRUNE_RANKED_OUT;
    if (r >= keep)
      x->why = kr_arena_printf(a, "fits, but ranked %zu of %zu by the model%s (score %.3g; the %zu kept: %.3g and up)",
                               r + 1, m, no_nvcc ? " without resources" : "", x->score, keep, c[fit[keep - 1]].score);
  }
  double bar = m >= keep && keep > 0 ? c[fit[keep - 1]].score : NAN;
  for (size_t i = 0; i < n; i++)
    if (c[i].verdict == KR_PRUNE_NOT_COMPILED)
      c[i].why = !isnan(bar) && in_time ? kr_arena_printf(a, "not compiled: its best possible score %.3g cannot beat the %zu kept "
                                               "(%.3g and up)", c[i].bound, keep, bar)
                          : "not compiled: the time budget ran out";
}

void kr_prune_run(const KrPruneOptions *o, KrPruneCand *c, size_t n, KrArena *a, const char **note) {
  *note = NULL;
  if (n == 0) return;
  Work w = {o, c, kr_arena_alloc(a, n * sizeof *w.text), kr_arena_alloc(a, n * sizeof *w.len)};
  prepare(&w, n, a);
  size_t *order = kr_arena_alloc(a, n * sizeof *order);
  Order ord = {c, kr_arena_alloc(a, n * sizeof *ord.pos)};
  for (size_t i = 0; i < n; i++) order[i] = i;
  sort_idx(order, n, by_bound, &ord);
  for (size_t i = 0; i < n; i++) ord.pos[order[i]] = i;
  KrDiags *d = kr_diags_new();
  const char *nvcc;
  bool no_nvcc = kr_nvcc_find(&nvcc, a, d) != KR_OK, in_time = true;
  if (no_nvcc) {
    const char *m = kr_diags_first_error(d);
    *note = kr_arena_printf(a, "resource pruning skipped (%s): the variants are ranked by the model without "
                               "registers and shared memory", m ? m : "nvcc not found");
    for (size_t i = 0; i < n; i++)
      if (c[i].verdict != KR_PRUNE_NOT_APPLIED) c[i].score = c[i].bound;
  } else {
    in_time = compile_best(&w, n, order, &ord, a);
  }
  kr_diags_free(d);
  decide(c, n, o->keep, &ord, no_nvcc, in_time, a);
  for (size_t i = 0; i < n; i++)
    if (c[i].run && c[i].verdict != KR_PRUNE_KEPT) kr_recipe_run_free(c[i].run), c[i].run = NULL;
  KrPruneCand *sorted = kr_arena_alloc(a, n * sizeof *sorted);
  sort_idx(order, n, kept_first, &ord);
  for (size_t i = 0; i < n; i++) sorted[i] = c[order[i]];
  memcpy(c, sorted, n * sizeof *c);
}

void kr_prune_json(const KrPruneCand *c, KrBuf *o) {
  kr_buf_puts(o, "{\"label\": "), kr_buf_json_str(o, c->label);
  kr_buf_puts(o, ", \"verdict\": "), kr_buf_json_str(o, kr_prune_verdict_name(c->verdict));
  kr_buf_puts(o, ", \"why\": "), kr_buf_json_str(o, c->why);
  kr_buf_puts(o, ", \"score\": ");
  if (!isnan(c->score)) kr_buf_json_num(o, c->score);
  else kr_buf_puts(o, "null");
  kr_buf_puts(o, ", \"bound\": ");
  kr_buf_json_num(o, c->bound);
  kr_buf_printf(o, ", \"rank\": %d, \"threads\": %d, \"resources\": ", c->rank, c->shaped ? c->shape.threads : 0);
  if (c->compiled && c->res.name)
    kr_buf_printf(o, "{\"registers\": %d, \"spill_stores\": %d, \"spill_loads\": %d, \"smem\": %d}", c->res.registers,
                  c->res.spill_stores, c->res.spill_loads, c->res.smem);
  else kr_buf_puts(o, "null");
  kr_buf_puts(o, "}");
}
