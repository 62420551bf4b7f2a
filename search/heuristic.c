/* search/heuristic.c: the built-in proposer (search/heuristic.h). Ideas are (pass, kernel)
 * pairs that are not yet in the seed recipe, whose parameterisations were each tried after the
 * seed (through the driver, on a copy of the document the seed recipe left); the passes' search
 * facts (KrPass.search: reason, points, rank per bottleneck) say what to try and in which order,
 * and the schedule families' grids (a contraction's, a row reduction's) are built here. */
#include "search/heuristic.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/model.h"
#include "frontend/nest.h"
#include "frontend/rows.h"
#include "frontend/tree.h"
#include "frontend/types.h"
#include "passes/reduction.h"
#include "passes/schedule.h"
#include "recipes/recipe.h"
#include "runtime/bench.h"
#include "runtime/expr.h"
#include "search/prune.h"

/* ---- Bottleneck ------------------------------------------------------------------------------- */

typedef struct SizeLookup {
  const KrSpec *spec;
} SizeLookup;

static bool lookup_bench(void *ctx, const char *name, int64_t *value) {
  const KrSpec *s = ((SizeLookup *)ctx)->spec;
  for (size_t i = 0; i < s->sizes.len; i++)
    if (strcmp(s->sizes.data[i].name, name) == 0) {
      *value = s->sizes.data[i].bench;
      return true;
    }
  return false;
}

double kr_heuristic_intensity(const KrSpec *spec, KrArena *arena) {
  if (!spec->flops || !spec->bytes) return -1;
  SizeLookup sl = {spec};
  int64_t flops, bytes;
  const char *why;
  if (kr_expr_eval(spec->flops, lookup_bench, &sl, &flops, arena, &why) != KR_OK) return -1;
  if (kr_expr_eval(spec->bytes, lookup_bench, &sl, &bytes, arena, &why) != KR_OK) return -1;
  if (bytes <= 0 || flops < 0) return -1;
  return (double)flops / (double)bytes;
}

/* The threads of the spec's largest launch at the benchmark sizes; -1 when they do not evaluate. */
static double most_threads(const KrSpec *spec, KrArena *arena) {
  SizeLookup sl = {spec};
  double most = -1;
  for (size_t i = 0; i < spec->launches.len; i++) {
    const KrLaunchSpec *l = &spec->launches.data[i];
    double threads = 1;
    for (int d = 0; d < 3; d++) {
      int64_t g, b;
      const char *why;
      if (kr_expr_eval(l->grid[d], lookup_bench, &sl, &g, arena, &why) != KR_OK ||
          kr_expr_eval(l->block[d], lookup_bench, &sl, &b, arena, &why) != KR_OK)
        return -1;
      threads *= (double)g * (double)b;
    }
    if (threads > most) most = threads;
  }
  return most;
}

double kr_heuristic_output_tiles(const KrSpec *spec, KrArena *arena) {
  double t = most_threads(spec, arena);
  return t < 0 ? -1 : t / (128.0 * 128.0);
}

double kr_heuristic_reduction_length(const KrSpec *spec, KrArena *arena) {
  SizeLookup sl = {spec};
  int64_t flops;
  const char *why;
  double t = most_threads(spec, arena);
  if (!spec->flops || t <= 0 || kr_expr_eval(spec->flops, lookup_bench, &sl, &flops, arena, &why) != KR_OK) return -1;
  return (double)flops / (2.0 * t);
}

bool kr_heuristic_compute_bound(double intensity) {
  return intensity >= KR_CEIL_FLOPS_PER_S / KR_CEIL_BYTES_PER_S;
}

/* The kernel a launch's callee `k` runs, by the name recipes give it: an explicit specialization the
 * file writes for its template arguments by its own name ("tk<float>"); a template still generic by the
 * callee, template arguments and all (specialize writes the specialization for them, which the
 * passes after it find by that name); else `k`; into out[0..*len) unless there already. */
static void add_kernel_name(const char **out, size_t *len, const char *k, const KrModel *m, KrArena *arena) {
  const KrKernel *kk = m ? kr_model_find_launch(m, k) : NULL;
  const char *lt = strchr(k, '<'), *gt = lt ? strrchr(lt, '>') : NULL;
  char *name;
  if (kk && kk->is_template && !kr_kernel_generic(kk))
    name = kr_arena_strdup(arena, kk->name);
  else if (kk && gt && kr_kernel_generic(kk))   /* a generic template: the name specialize gives its specialization */
    name = kr_arena_printf(arena, "%s<%s>", kk->qualified_name,
                           kr_type_template_args_normal(kr_arena_strndup(arena, lt + 1, (size_t)(gt - lt - 1)), arena));
  else
    name = kr_arena_strndup(arena, k, lt ? (size_t)(lt - k) : strlen(k));
  size_t end = strlen(name);
  while (end > 0 && name[end - 1] == ' ') name[--end] = '\0';
  bool seen = false;
  for (size_t j = 0; j < *len; j++) seen = seen || strcmp(out[j], name) == 0;
  if (!seen) out[(*len)++] = name;
}

void kr_heuristic_kernels(const KrSpec *spec, const char *text, size_t len, const KrBuildFlags *build, KrArena *arena,
                          const char ***names, size_t *n) {
  /* The source's model: the explicit specializations it writes, and an entry's launches. */
  KrDiags *d = kr_diags_new();
  KrSource src;
  KrTree *t = NULL;
  const KrModel *m = NULL;
  if (text && kr_source_from_text(&src, spec->source, text, len, arena, d) == KR_OK &&
      (kr_source_use(&src, build), t = kr_tree_parse(&src, d)))
    m = kr_model_new(t, arena);
  *n = 0;
  if (spec->entry) {
    /* The launches in host functions whose bodies the kernels' build keeps for the entry
     * (kr_model_host_bodies), in source order. */
    *names = NULL;
    if (m) {
      KrSpan *drop;
      size_t ndrop;
      const char *keep = spec->entry->name;
      kr_model_host_bodies(t, &keep, 1, arena, &drop, &ndrop);
      const char **out = kr_arena_alloc(arena, (m->launches.len + 1) * sizeof *out);
      for (size_t i = 0; i < m->launches.len; i++) {
        const KrLaunch *l = &m->launches.data[i];
        if (!kr_model_launch_kept(t, l, drop, ndrop)) continue;
        add_kernel_name(out, n, l->template_args ? kr_arena_printf(arena, "%s<%s>", l->kernel, l->template_args) : l->kernel,
                        m, arena);
      }
      *names = out;
    }
  } else {
    const char **out = kr_arena_alloc(arena, (spec->launches.len + 1) * sizeof *out);
    for (size_t i = 0; i < spec->launches.len; i++) add_kernel_name(out, n, spec->launches.data[i].kernel, m, arena);
    *names = out;
  }
  if (t) kr_tree_free(t);
  kr_diags_free(d);
}

/* ---- The order: the passes' search facts -------------------------------------------------------- */

#define KR_HEURISTIC_SMS 132       /* the H200's */
#define KR_HEURISTIC_LONG_K 1024   /* multiply-adds per output worth splitting over blocks */

/* The passes proposed for bottleneck b, by their rank (KrSearchFacts.rank) into out (room for
 * kr_pass_count()); how many. The ranks put the schedule passes first in every order: they apply
 * only to kernels whose nest is a contraction (tile ... split_k; implicit_gemm for a convolution)
 * or a row reduction (block_reduce: a grid of block_reduce, warp_reduce and split_rows schedules
 * with online_softmax / welford; online_softmax and welford alone on a seed that has a reduction
 * schedule already), and there they are what changes the time (text passes move such kernels by
 * less than a percent on the H200, bench/results/optimize-2026-11-29.json). A row reduction reads
 * its rows from memory, so its passes lead the memory-bound and latency-bound orders; on a
 * compute-bound one they follow the contraction's. Latency-bound (neither unit near its peak):
 * more independent work in flight per thread first (unrolled loops, wider accesses), then cheaper
 * loads. */
static size_t order_of(KrSearchBound b, const KrPass **out) {
  size_t n = 0;
  for (size_t i = 0; i < kr_pass_count(); i++) {
    const KrPass *p = kr_pass_at(i);
    if (!p->search.reason || p->search.rank[b] <= 0) continue;
    size_t j = n++;   /* insertion by rank: a few dozen passes at most */
    for (; j > 0 && out[j - 1]->search.rank[b] > p->search.rank[b]; j--) out[j] = out[j - 1];
    out[j] = p;
  }
  return n;
}

/* ---- Deterministic shuffling (splitmix64) ----------------------------------------------------- */

static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void shuffle(const char **items, size_t n, uint64_t seed) {
  uint64_t state = seed;
  for (size_t i = n; i > 1; i--) {
    size_t j = (size_t)(next_random(&state) % i);
    const char *t = items[i - 1];
    items[i - 1] = items[j];
    items[j] = t;
  }
}

/* ---- Trying passes ---------------------------------------------------------------------------- */

/* Runs the seed recipe over the source, keeping its document (an empty recipe: the original's);
 * NULL when it fails. */
static KrRecipeRun *run_seed(const char *recipe, const KrHeuristicInput *in) {
  KrRecipeOptions ro;
  kr_recipe_options_init(&ro, NULL);
  ro.build = in->build;
  ro.keep_doc = true;
  KrDiags *d = kr_diags_new();
  KrRecipeRun *run = NULL;
  if (kr_recipe_apply("heuristic.lua", recipe, strlen(recipe), in->source_path, in->source_text, in->source_len,
                      &ro, &run, d) != KR_OK)
    run = NULL;
  kr_diags_free(d);
  return run;
}

/* One k:apply after the seed: a pass and its parameters as a recipe writes them. */
typedef struct Step {
  const char *pass;
  const char *params;      /* "{ width = 4 }" */
} Step;

/* The steps as a recipe's lines, one k:apply each. */
static const char *steps_text(const char *kernel, const Step *steps, size_t n, KrArena *a) {
  const char *t = "";
  for (size_t i = 0; i < n; i++)
    t = kr_arena_printf(a, "%skr.kernel(\"%s\"):apply(\"%s\", %s)\n", t, kernel, steps[i].pass, steps[i].params);
  return t;
}

/* Runs one step on doc's kernel `name` (qualified) through the driver; NULL when it applied (its
 * record in *rec, from `scratch`), else the failure as k:apply raises it (from `a`). */
static const char *run_step(KrDoc *doc, const char *name, Step step, bool lowering, KrArena *scratch,
                            KrPassRecord *rec, KrArena *a) {
  const KrPass *p = kr_pass_find(step.pass);
  if (!p) return kr_arena_printf(a, "unknown pass '%s'", step.pass);
  KrDiags *d = kr_diags_new();
  KrRawArgs raw;
  const char *fail = NULL;
  if (kr_recipe_args(p->name, step.params, scratch, &raw, d) != KR_OK) {
    const char *m = kr_diags_first_error(d);
    fail = kr_arena_strdup(a, m ? m : "bad parameters");
  } else {
    KrStatus st = kr_doc_run_pass(doc, p, name, &raw, lowering, scratch, rec, d);
    if (st != KR_OK) fail = kr_recipe_pass_failure(p->name, name, st, d, a);
  }
  kr_diags_free(d);
  return fail;
}

/* Whether every step applies to `kernel` after the seed: the steps run through the driver on a
 * copy of the seed's document, which carries the schedules the seed's schedule passes keep, so a
 * schedule pass finds the schedule and the lifted text they left (a fresh document of the seed's
 * output would not lift: its kernel already uses shared memory). Lowering passes run when the seed
 * or `lowering` opts in. Else, when why is not NULL, *why is the failure as k:apply raises it; the
 * last step's shared memory (its launch change, NULL: unchanged) in *shmem when that is not NULL. */
static bool probe(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel, const Step *steps,
                  size_t n, bool lowering, KrArena *a, const char **why, const char **shmem) {
  KrArena *scratch = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrDoc *doc = kr_doc_copy(seed->doc, d);
  const KrKernel *k = doc ? kr_model_find_launch(kr_doc_model(doc), kernel) : NULL;
  /* Each pass replaces the model; a name with template arguments stays (specialize reads them, and the
   * passes after it find the specialization by it). */
  const char *name = k ? kr_arena_strdup(scratch, strchr(kernel, '<') ? kernel : k->qualified_name) : NULL;
  const char *fail = NULL;
  if (!doc) fail = "the seed's text does not parse again";
  else if (!k)
    fail = kr_arena_printf(a, "no kernel '%s' in %s (kernels here: %s)", kernel, in->source_path,
                           kr_model_kernel_names(kr_doc_model(doc), a));
  for (size_t i = 0; !fail && i < n; i++) {
    KrPassRecord rec;
    fail = run_step(doc, name, steps[i], lowering || seed->allow_lowering, scratch, &rec, a);
    if (!fail && shmem && i + 1 == n) *shmem = rec.launch.shmem ? kr_arena_strdup(a, rec.launch.shmem) : NULL;
  }
  if (fail && why) *why = fail;
  kr_doc_free(doc);
  kr_diags_free(d);
  kr_arena_free(scratch);
  return !fail;
}

/* Whether a pass's ideas run under kr.allow_lowering(): a lowering pass's always (it is only
 * offered when lowering is allowed), one whose parameters decide (tensor_core) when lowering is
 * allowed (else only its exact forms apply: 16-bit operands). */
static bool opts_in(const KrHeuristicInput *in, const KrPass *p) {
  return p->precision == KR_PRECISION_LOWERS || (p->precision == KR_PRECISION_PARAM && in->allow_lowering);
}

/* Whether `pass` with `params` applies to `kernel` after the seed. */
static bool applies(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *pass, const char *kernel,
                    const char *params, KrArena *a) {
  const KrPass *p = kr_pass_find(pass);
  Step s = {pass, params};
  return p && probe(in, seed, kernel, &s, 1, opts_in(in, p), a, NULL, NULL);
}

static bool already_done(const KrRecipeRun *seed, const char *pass, const char *kernel) {
  for (size_t i = 0; seed && i < seed->records.len; i++)
    if (strcmp(seed->records.data[i].pass, pass) == 0 &&
        strcmp(seed->records.data[i].kernel, kernel) == 0)
      return true;
  return false;
}

/* Whether the seed rewrote `kernel` with a schedule pass, or with a text pass whose output the nest
 * does not read: the kernel is past the nest, so the passes that prepare it for one are not offered
 * (join_declarations would otherwise find the locals a row schedule declares without a value). */
static bool past_the_nest(const KrRecipeRun *seed, const char *kernel) {
  for (size_t i = 0; seed && i < seed->records.len; i++) {
    const KrPass *p = kr_pass_find(seed->records.data[i].pass);
    if (p && strcmp(seed->records.data[i].kernel, kernel) == 0 && (p->schedule || p->rows || !p->before_schedule))
      return true;
  }
  return false;
}

static const char *bottleneck_note(const KrHeuristicInput *in, KrArena *a) {
  double intensity = in->intensity;
  if (in->bound) return kr_arena_printf(a, "%s, as profiled by Nsight Compute", in->bound);
  if (intensity < 0) return "bottleneck unknown (no flops/bytes in the spec): treated as memory-bound";
  return kr_arena_printf(a, "%s: %.3g FLOP/byte", kr_heuristic_compute_bound(intensity)
                                                      ? "compute-bound" : "memory-bound",
                         intensity);
}

static const char *extend_recipe(const char *seed, const char *pass, const char *kernel,
                                 const char *label, const char *params_lua, int round, bool opt_in,
                                 KrArena *a) {
  size_t n = seed ? strlen(seed) : 0;
  bool nl = n == 0 || seed[n - 1] == '\n';
  bool lower = opt_in && !(seed && strstr(seed, "kr.allow_lowering()"));
  return kr_arena_printf(a, "%s%s%s-- round %d: %s %s on %s\nkr.kernel(\"%s\"):apply(\"%s\", %s)\n",
                         seed ? seed : "", nl ? "" : "\n", lower ? "kr.allow_lowering()\n" : "",
                         round, pass, label, kernel, kernel, pass, params_lua);
}

/* ---- The schedule grid of a contraction -------------------------------------------------------- */

/* `kernel` in `text` (the source's path and build flags, into *src, which the tree points to), its tree
 * in *t (the caller frees it, NULL when the text does not parse); NULL when either fails. */
static const KrKernel *parse_kernel(const KrHeuristicInput *in, const char *text, size_t len, const char *kernel,
                                    KrArena *a, KrDiags *d, KrSource *src, KrTree **t) {
  *t = NULL;
  if (kr_source_from_text(src, in->source_path, text, len, a, d) != KR_OK) return NULL;
  kr_source_use(src, in->build);
  if (!(*t = kr_tree_parse(src, d))) return NULL;
  const KrModel *m = kr_model_new(*t, a);
  return m ? kr_model_find_launch(m, kernel) : NULL;
}

/* ---- Epilogue fusions ------------------------------------------------------------------------------ */

enum { MAX_FUSIONS = 4 };

/* The elementwise consumers a schedule of a kernel computes in its epilogue: fuse steps that come
 * before the schedule's (fuse reads the producer's nest, which a schedule replaces). */
typedef struct Fusions {
  Step steps[MAX_FUSIONS];
  const char *consumer[MAX_FUSIONS];
  size_t n;
  const char *label;       /* "fuse relu_inplace," per consumer; "" for none */
} Fusions;

static const Fusions no_fusions = {.label = ""};

/* Whether `kernel` in the seed's text lifts into an elementwise nest: one parallel axis, no loop. */
static bool elementwise(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel, KrArena *a) {
  KrDiags *d = kr_diags_new();
  KrSource src;
  KrTree *t = NULL;
  const KrKernel *k = parse_kernel(in, seed->output_text, seed->output_len, kernel, a, d, &src, &t);
  const KrNest *n = k ? kr_nest_lift(t, k, a, d) : NULL;
  bool ok = n && n->reduce < 0 && n->axes.len == 1;
  if (t) kr_tree_free(t);
  kr_diags_free(d);
  return ok;
}

/* The launched elementwise kernels (a ReLU, a bias, a scale of what `kernel` stores) that fuse
 * computes in `kernel`'s epilogue after the seed, in launch order (kernels[]: the spec's), each
 * probed after the ones before it; none where
 * the seed schedules `kernel` already. A fused consumer saves a sweep of its array over memory (read
 * and written again) and a launch, and is exact, so the schedules offered for `kernel` carry it. */
static void epilogue_fusions(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel,
                             const char **kernels, KrArena *a, Fusions *fu) {
  *fu = no_fusions;
  for (size_t i = 0; i < seed->records.len; i++)
    if (seed->records.data[i].schedule_json && strcmp(seed->records.data[i].kernel, kernel) == 0) return;
  for (size_t c = 0; c < in->nkernels && fu->n < MAX_FUSIONS; c++) {
    if (strcmp(kernels[c], kernel) == 0 || !elementwise(in, seed, kernels[c], a)) continue;
    fu->steps[fu->n] = (Step){"fuse", kr_arena_printf(a, "{ consumer = \"%s\" }", kernels[c])};
    if (!probe(in, seed, kernel, fu->steps, fu->n + 1, false, a, NULL, NULL)) continue;
    fu->label = kr_arena_printf(a, "%sfuse %s,", fu->label, kernels[c]);
    fu->consumer[fu->n++] = kernels[c];
  }
}

/* Whether a pass of the seed dropped `kernel`'s launches from the program (the launch change's
 * `drops`: fuse computed it in its producer): no idea is offered for it then. */
static bool dropped(const KrRecipeRun *seed, const char *kernel) {
  for (size_t i = 0; i < seed->records.len; i++) {
    const char *d = seed->records.data[i].launch.drops;
    if (d && strcmp(d, kernel) == 0) return true;
  }
  return false;
}

/* The reason's words for the fusions: "", or "; the elementwise relu_inplace computed in its epilogue
 * (fuse: a sweep of its array saved)". */
static const char *fusions_note(const Fusions *fu, KrArena *a) {
  if (fu->n == 0) return "";
  const char *names = "";
  for (size_t i = 0; i < fu->n; i++) names = kr_arena_printf(a, "%s%s%s", names, i ? ", " : "", fu->consumer[i]);
  return kr_arena_printf(a, "; the elementwise %s computed in its epilogue first (fuse: a sweep of memory and a launch "
                            "saved)", names);
}

/* split_k pays only when the output tiles alone leave SMs idle and each output's reduction is
 * long enough to be worth splitting (a short one is over before the parts' combine pays back). */
static bool few_tiles(const KrHeuristicInput *in) {
  return in->output_tiles > 0 && in->output_tiles < KR_HEURISTIC_SMS && in->reduction_length >= KR_HEURISTIC_LONG_K;
}

/* The parts split_k gives a block tile of bm x bn with k tiles of bk: where the tiles leave SMs idle
 * (few_tiles), the fewest (a power of two) that fill them, each part keeping at least 4 k tiles; 1
 * (no split) otherwise. */
static int split_parts(const KrHeuristicInput *in, int bm, int bn, int bk) {
  if (!few_tiles(in)) return 1;
  double tiles = in->output_tiles * 128.0 * 128.0 / ((double)bm * bn);
  int p = 1;
  while (2 * p <= KR_SCHED_MAX_PARTS && tiles * p < KR_HEURISTIC_SMS && in->reduction_length / ((double)bk * 2 * p) >= 4)
    p *= 2;
  return p;
}

/* sm_90 fp32 SGEMM-like tiles, the likeliest first (the order only breaks ties of the model). */
static const int grid_block[][2] = {{128, 128}, {128, 64}, {64, 128}, {64, 64}};
static const int grid_k[] = {16, 8, 32};
static const int grid_thread[][2] = {{8, 8}, {8, 4}, {4, 8}, {4, 4}};
static const int grid_stages[] = {2, 1, 3};

static const char *grid_reason =
  "schedule %s's contraction: block tiles with the operands staged in shared memory, a register "
  "tile of outputs per thread and, with 2 or more stages, the k tiles loaded by cp.async ahead of "
  "the math%s (a grid of tile sizes, pruned by ptxas resources and ranked by a model)";

enum { GRID_STEPS = 4 };   /* the most passes a grid's schedule applies */

/* The schedule's steps after the seed, one pass each, into steps[GRID_STEPS]; how many. */
static size_t grid_steps(const int *b, int k, const int *t, int stages, int parts, KrArena *a, Step *steps) {
  size_t n = 0;
  steps[n++] = (Step){"tile", kr_arena_printf(a, "{ block = {%d, %d}, k = %d }", b[0], b[1], k)};
  steps[n++] = (Step){"register_tile", kr_arena_printf(a, "{ thread = {%d, %d} }", t[0], t[1])};
  if (stages > 1) steps[n++] = (Step){"double_buffer", kr_arena_printf(a, "{ stages = %d }", stages)};
  if (parts > 1) steps[n++] = (Step){"split_k", kr_arena_printf(a, "{ parts = %d }", parts)};
  return n;
}

/* Whether the steps apply after the seed, every step's pass included (lowering ones when `lowering`);
 * else the reason in *why. */
static bool grid_applies(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel, const Step *steps,
                         size_t n, bool static_shared, bool lowering, KrArena *a, const char **why) {
  const char *shmem = NULL;
  if (!probe(in, seed, kernel, steps, n, lowering, a, why, &shmem)) return false;
  /* With static_shared (the contraction's SIMT grid), the grid keeps to static shared memory (48 KiB):
   * the schedules measured best on the H200 fit there (bench/results/schedule-2026-12-01b.json), and
   * deeper ones cost the emulator's checks most. (A row reduction's row_cache and the tensor cores'
   * tiles are dynamic by design.) */
  if (static_shared && shmem && strcmp(shmem, "0") != 0) {
    *why = kr_arena_printf(a, "tile: its tiles need %s bytes of shared memory, beyond the 48 KiB the grid "
                              "keeps to (static shared memory)", shmem);
    return false;
  }
  return true;
}

/* A refusal's reason without the recipe's and the source's locations: "tile: the staged tiles
 * need ..." (search/prune.h's reading of the diagnostic), else the diagnostic as it is. */
static const char *reason_of(const char *why, KrArena *a) {
  KrPassRefusal r;
  return kr__pass_refusal(why, a, &r) ? kr_arena_printf(a, "%s: %s", r.pass, r.reason) : why;
}

/* The recipe of a grid's variant: the seed, kr.allow_lowering() when `lowering` and the seed does not
 * opt in already, a comment naming the point, the steps. */
static const char *grid_recipe(const KrHeuristicInput *in, const char *label, const char *kernel, const Step *steps,
                               size_t n, bool lowering, KrArena *a) {
  const char *seed = in->seed_recipe ? in->seed_recipe : "";
  size_t len = strlen(seed);
  bool opt_in = lowering && !strstr(seed, "kr.allow_lowering()");
  return kr_arena_printf(a, "%s%s%s-- round %d: schedule %s on %s\n%s", seed, len && seed[len - 1] != '\n' ? "\n" : "",
                         opt_in ? "kr.allow_lowering()\n" : "", in->round, label, kernel, steps_text(kernel, steps, n, a));
}

/* One point of a grid, the fusions' steps and then steps[0..n) after the seed (`params`: the Lua
 * table of its main step): a variant of the idea, or a refusal. */
static void grid_add(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel, const Fusions *fu,
                     const char *label, const Step *given, size_t ngiven, const char *params, bool static_shared,
                     bool lowering, KrArena *a, KrIdea *idea) {
  Step steps[MAX_FUSIONS + GRID_STEPS + 1];
  size_t n = 0;
  for (size_t i = 0; i < fu->n; i++) steps[n++] = fu->steps[i];
  for (size_t i = 0; i < ngiven && n < sizeof steps / sizeof *steps; i++) steps[n++] = given[i];
  label = kr_arena_printf(a, "%s%s", fu->label, label);
  const char *why = NULL;
  if (!grid_applies(in, seed, kernel, steps, n, static_shared, lowering, a, &why)) {
    KrIdeaRefusal r = {label, reason_of(why, a)};
    kr_vec_push(a, &idea->refused, r);
    return;
  }
  KrIdeaVariant v = {.label = label, .params_lua = params};
  v.recipe = grid_recipe(in, label, kernel, steps, n, lowering, a);
  kr_vec_push(a, &idea->variants, v);
}

/* One point of the contraction's SIMT grid. */
static void grid_point(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel, const Fusions *fu,
                       const int *b, int k, const int *t, int stages, KrArena *a, KrIdea *idea) {
  int parts = split_parts(in, b[0], b[1], k);
  const char *label = kr_arena_printf(a, "%dx%d,k=%d,%dx%d,stages=%d", b[0], b[1], k, t[0], t[1], stages);
  if (parts > 1) label = kr_arena_printf(a, "%s,parts=%d", label, parts);
  Step steps[GRID_STEPS];
  size_t n = grid_steps(b, k, t, stages, parts, a, steps);
  grid_add(in, seed, kernel, fu, label, steps, n, steps[0].params, true, false, a, idea);
}

/* The grid idea for `kernel`, or false when the kernel is not a contraction after the seed. Where
 * its output tiles leave SMs idle and its reduction is long (few_tiles), every schedule splits its k
 * loop over as many blocks a tile as fill the SMs (split_k; the model counts their blocks). */
static bool propose_grid(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel,
                         const Fusions *fu, KrArena *a, KrIdeaList *out) {
  if (!applies(in, seed, "register_tile", kernel, "{}", a)) return false;
  KrIdea idea = {.pass = "tile", .kernel = kernel, .grid = true,
                 .outputs = in->output_tiles > 0 ? in->output_tiles * 128.0 * 128.0 : 0};
  for (size_t b = 0; b < sizeof grid_block / sizeof grid_block[0]; b++)
    for (size_t k = 0; k < sizeof grid_k / sizeof grid_k[0]; k++)
      for (size_t t = 0; t < sizeof grid_thread / sizeof grid_thread[0]; t++)
        for (size_t st = 0; st < sizeof grid_stages / sizeof grid_stages[0]; st++)
          grid_point(in, seed, kernel, fu, grid_block[b], grid_k[k], grid_thread[t], grid_stages[st], a, &idea);
  if (idea.variants.len == 0) return false;
  const char *split = few_tiles(in) ? ", its k loop split over blocks (split_k) so that the tiles fill the SMs" : "";
  idea.reason = kr_arena_printf(a, "%s%s (%s)", kr_arena_printf(a, grid_reason, kernel, split), fusions_note(fu, a),
                                bottleneck_note(in, a));
  kr_vec_push(a, out, idea);
  return true;
}

/* ---- The tensor cores' grid of a contraction -------------------------------------------------------- */

/* Block tiles of the tensor cores' schedules on sm_90, the likeliest first: Hopper's wgmma computes a
 * warpgroup's 64 x N (N up to 256) from a shared tile, so its tiles are larger than SIMT's. */
static const int tc_block[][2] = {{256, 128}, {128, 256}, {128, 128}, {256, 64}, {128, 64}, {64, 128}};
static const int tc_stages[] = {4, 3, 2};

static const char *tc_reason =
  "schedule %s's contraction on the tensor cores: block tiles staged in dynamic shared memory by "
  "cp.async, 2 to 4 stages ahead of the math, the products by Hopper's wgmma (a warpgroup's 64 x N "
  "from the shared tile) or by mma.sync fed by ldmatrix; %s (a grid of tile sizes, pruned by ptxas "
  "resources and ranked by a model)";

/* The precisions the grid tries on `kernel` after the seed, into prec[] (at most 2); how many. The
 * exact one (auto: 16-bit operands as they are) always where it applies; with lowering allowed, fp32
 * operands in 3xtf32 (fp32-grade) and tf32. *k16 is set when the exact one applies (wgmma's k tile
 * is then 64 elements: rows of 128 bytes). */
static size_t tc_precisions(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel, KrArena *a,
                            const char **prec, bool *k16) {
  Step steps[2] = {{"tile", "{ block = {128, 128}, k = 32 }"}, {"tensor_core", "{}"}};
  size_t n = 0;
  *k16 = probe(in, seed, kernel, steps, 2, false, a, NULL, NULL);
  if (*k16) prec[n++] = "auto";
  else if (in->allow_lowering && probe(in, seed, kernel, steps, 2, true, a, NULL, NULL)) {
    prec[n++] = "3xtf32";
    prec[n++] = "tf32";
  }
  return n;
}

/* One point of the tensor cores' grid: tile, tensor_core, double_buffer. */
static void tc_point(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel, const Fusions *fu,
                     const char *prec, const char *api, const int *b, int k, int stages, KrArena *a, KrIdea *idea) {
  bool lowering = strcmp(prec, "auto") != 0;
  const char *label = kr_arena_printf(a, "%s%s%s,%dx%d,k=%d,stages=%d", lowering ? prec : "", lowering ? "," : "",
                                      api, b[0], b[1], k, stages);
  Step steps[3];
  steps[0] = (Step){"tile", kr_arena_printf(a, "{ block = {%d, %d}, k = %d }", b[0], b[1], k)};
  steps[1] = (Step){"tensor_core", lowering ? kr_arena_printf(a, "{ precision = \"%s\", api = \"%s\" }", prec, api)
                                            : kr_arena_printf(a, "{ api = \"%s\" }", api)};
  steps[2] = (Step){"double_buffer", kr_arena_printf(a, "{ stages = %d }", stages)};
  grid_add(in, seed, kernel, fu, label, steps, 3, steps[1].params, false, lowering, a, idea);
}

/* The tensor cores' grid idea for `kernel`, or false when its products do not go on the tensor cores
 * after the seed (fp32 operands without lowering allowed; not a contraction; tiled already). */
static bool propose_tc_grid(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel,
                            const Fusions *fu, KrArena *a, KrIdeaList *out) {
  if (already_done(seed, "tile", kernel)) return false;
  const char *prec[2];
  bool k16;
  size_t np = tc_precisions(in, seed, kernel, a, prec, &k16);
  if (np == 0) return false;
  KrIdea idea = {.pass = "tensor_core", .kernel = kernel, .grid = true,
                 .outputs = in->output_tiles > 0 ? in->output_tiles * 128.0 * 128.0 : 0};
  /* wgmma reads k tiles of 128 bytes (64 16-bit elements, 32 fp32 ones); mma.sync any multiple of its k. */
  int kwg = k16 ? 64 : 32, kmma[2] = {k16 ? 32 : 16, k16 ? 64 : 32};
  for (size_t p = 0; p < np; p++)
    for (size_t b = 0; b < sizeof tc_block / sizeof tc_block[0]; b++)
      for (size_t st = 0; st < sizeof tc_stages / sizeof tc_stages[0]; st++) {
        tc_point(in, seed, kernel, fu, prec[p], "wgmma", tc_block[b], kwg, tc_stages[st], a, &idea);
        for (size_t k = 0; k < 2; k++)
          tc_point(in, seed, kernel, fu, prec[p], "mma", tc_block[b], kmma[k], tc_stages[st], a, &idea);
      }
  if (idea.variants.len == 0) return false;
  const char *what = k16 ? "the 16-bit operands as they are (exact products, fp32 sums)"
                         : "the fp32 operands in 3xtf32 (fp32-grade) or tf32 (lowered: opted in)";
  idea.reason = kr_arena_printf(a, "%s%s (%s)", kr_arena_printf(a, tc_reason, kernel, what), fusions_note(fu, a),
                                bottleneck_note(in, a));
  kr_vec_push(a, out, idea);
  return true;
}

/* ---- The schedule grid of a row reduction ------------------------------------------------------ */

#define KR_HEURISTIC_SHORT_ROW 4096   /* elements a row below which a warp per row is tried first */
#define KR_HEURISTIC_FEW_ROWS (4 * KR_HEURISTIC_SMS)   /* rows below which split_rows is tried first */

static const int rows_block_threads[] = {256, 128, 512, 1024};
static const int rows_warp_threads[] = {256, 128, 512};
static const int rows_split_parts[] = {2, 4, 8, 16, 32};
static const int rows_cluster_parts[] = {4, 8};   /* split_rows over a cluster (at most 8 blocks) */

/* What the lifted row nest of a kernel says, for the grid's order and its reason line. */
typedef struct RowsInfo {
  KrRowsMap map;
  KrRowsLayout layout;     /* block_reduce's "auto": KR_LAYOUT_BLOCK or KR_LAYOUT_COLUMN */
  double rows, length;     /* at the spec's benchmark sizes; -1: unknown */
  bool shared_vector;      /* a row loop reads an array at an index that does not name the row (a weight) */
  int elem_bytes;          /* the row's elements (the widest array a row loop reads at the row); 4: unknown */
} RowsInfo;

typedef struct ArgLookup {
  const KrSpec *spec;
  const KrLaunchSpec *launch;
  const KrKernel *kernel;
  KrArena *a;
} ArgLookup;

/* A kernel parameter's value at the benchmark sizes, through the launch's argument for it. */
static bool lookup_arg(void *ctx, const char *name, int64_t *value) {
  ArgLookup *al = ctx;
  SizeLookup sl = {al->spec};
  for (size_t i = 0; i < al->kernel->params.len && i < al->launch->args.len; i++) {
    if (strcmp(al->kernel->params.data[i].name, name) != 0) continue;
    const char *why;
    return al->launch->args.data[i].text &&
           kr_expr_eval(al->launch->args.data[i].text, lookup_bench, &sl, value, al->a, &why) == KR_OK;
  }
  return false;
}

static double eval_kernel_expr(ArgLookup *al, const char *text) {
  int64_t v;
  const char *why;
  if (!text || kr_expr_eval(text, lookup_arg, al, &v, al->a, &why) != KR_OK) return -1;
  return (double)v;
}

static bool names_word(const char *text, const char *w) {
  size_t n = strlen(w);
  for (const char *p = strstr(text, w); p; p = strstr(p + 1, w)) {
    bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
    if (!before && !after) return true;
  }
  return false;
}

typedef KrVec(TSNode) Nodes;

static void subscripts_of(const KrTree *t, TSNode n, KrArena *a, Nodes *out) {
  if (ts_node_symbol(n) == t->sym.subscript_expression) kr_vec_push(a, out, n);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) subscripts_of(t, ts_node_named_child(n, i), a, out);
}

/* Whether a row loop reads an element whose index names the loop's counter but not the row: a
 * vector every row reads again (layernorm's weight), which L2 keeps when the rows stream past. */
static bool reads_shared_vector(const KrTree *t, const KrRows *r, KrArena *a) {
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowItem *it = &r->items.data[i];
    if (it->kind != KR_ROW_LOOP || ts_node_is_null(it->body)) continue;
    Nodes subs = {0};
    subscripts_of(t, it->body, a, &subs);
    for (size_t k = 0; k < subs.len; k++) {
      const char *idx = kr_node_text_flat(t, ts_node_child_by_field_name(subs.data[k], "indices", 7), a);
      if (names_word(idx, it->var) && !names_word(idx, r->row)) return true;
    }
  }
  return false;
}

/* Bytes of an element of a scalar type as written ("__nv_bfloat16", "double"); 0: not known. */
static int type_bytes(const char *base) {
  static const char *const two[] = {"half", "__half", "__nv_bfloat16", "nv_bfloat16", "bfloat16", "short",
                                    "int16_t", "uint16_t", "unsigned short", NULL};
  static const char *const eight[] = {"double", "long", "long long", "int64_t", "uint64_t", "size_t",
                                      "unsigned long", "unsigned long long", NULL};
  static const char *const four[] = {"float", "int", "unsigned", "unsigned int", "int32_t", "uint32_t", NULL};
  for (int i = 0; two[i]; i++) if (!strcmp(base, two[i])) return 2;
  for (int i = 0; eight[i]; i++) if (!strcmp(base, eight[i])) return 8;
  for (int i = 0; four[i]; i++) if (!strcmp(base, four[i])) return 4;
  return 0;
}

/* The widest element of the pointer parameters a row loop reads at an index naming the row (the
 * row's own arrays, which row_cache keeps); 4 when none is a parameter of a known type. */
static int row_elem_bytes(const KrTree *t, const KrKernel *k, const KrRows *r, KrArena *a) {
  int widest = 0;
  for (size_t i = 0; i < r->items.len; i++) {
    const KrRowItem *it = &r->items.data[i];
    if (it->kind != KR_ROW_LOOP || ts_node_is_null(it->body)) continue;
    Nodes subs = {0};
    subscripts_of(t, it->body, a, &subs);
    for (size_t s = 0; s < subs.len; s++) {
      const char *idx = kr_node_text_flat(t, ts_node_child_by_field_name(subs.data[s], "indices", 7), a);
      const char *arr = kr_node_text_flat(t, ts_node_child_by_field_name(subs.data[s], "argument", 8), a);
      if (!names_word(idx, it->var) || !names_word(idx, r->row)) continue;
      for (size_t p = 0; p < k->params.len; p++)
        if (k->params.data[p].pointer_depth == 1 && !strcmp(k->params.data[p].name, arr)) {
          int b = type_bytes(k->params.data[p].base);
          if (b > widest) widest = b;
        }
    }
  }
  return widest ? widest : 4;
}

/* Lifts `kernel` of the original source (or of the source prepared for the nest, lift_text) into its
 * row nest; false when it is none. The row count
 * (the guard's bound) and the first row loop's length are evaluated at the spec's benchmark sizes
 * when the spec is known and they are written in the kernel's parameters. */
static bool rows_info(const KrHeuristicInput *in, const char *kernel, KrArena *a, RowsInfo *info) {
  *info = (RowsInfo){.rows = -1, .length = -1, .elem_bytes = 4};
  KrDiags *d = kr_diags_new();
  KrSource src;
  KrTree *t = NULL;
  bool ok = false;
  const char *text = in->lift_text ? in->lift_text : in->source_text;
  size_t len = in->lift_text ? in->lift_len : in->source_len;
  const KrKernel *k = parse_kernel(in, text, len, kernel, a, d, &src, &t);
  const KrRows *r = k ? kr_rows_lift(t, k, a, d) : NULL;
  if (r) {
    ok = true;
    info->map = r->map;
    info->layout = kr_reduction_layout(r, t);
    info->shared_vector = reads_shared_vector(t, r, a);
    info->elem_bytes = row_elem_bytes(t, k, r, a);
    for (size_t i = 0; in->spec && i < in->spec->launches.len; i++) {
      const char *lk = in->spec->launches.data[i].kernel;
      size_t n = strcspn(lk, "< ");
      if (strlen(kernel) != n || strncmp(lk, kernel, n) != 0) continue;
      ArgLookup al = {in->spec, &in->spec->launches.data[i], k, a};
      if (r->single) info->rows = 1;
      else if (!ts_node_is_null(r->guard_hi)) info->rows = eval_kernel_expr(&al, kr_node_text(t, r->guard_hi, a));
      for (size_t j = 0; j < r->items.len; j++) {
        const KrRowItem *it = &r->items.data[j];
        if (it->kind != KR_ROW_LOOP) continue;
        info->length = eval_kernel_expr(&al, kr_arena_printf(a, "(%s) - (%s)", it->hi, it->lo ? it->lo : "0"));
        break;
      }
      if (r->elements) {   /* its rows are the launch's blocks, of blockDim.x elements */
        SizeLookup sl = {in->spec};
        const KrLaunchSpec *l = &in->spec->launches.data[i];
        int64_t v;
        const char *why;
        info->rows = kr_expr_eval(l->grid[0], lookup_bench, &sl, &v, a, &why) == KR_OK ? (double)v : -1;
        info->length = kr_expr_eval(l->block[0], lookup_bench, &sl, &v, a, &why) == KR_OK ? (double)v : -1;
      }
      break;
    }
  }
  if (t) kr_tree_free(t);
  kr_diags_free(d);
  return ok;
}

/* One point of a row grid: a layout pass's line and the fusions' lines after it. */
typedef struct RowsPoint {
  const char *pass;        /* block_reduce, warp_reduce, split_rows */
  const char *label, *params_lua;
  const char *before;      /* a block_reduce line's parameters before split_rows, or NULL */
} RowsPoint;

static void rows_point(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel, RowsPoint p,
                       bool online, bool welford, const char *cache, KrArena *a, KrIdea *idea) {
  const char *label = kr_arena_printf(a, "%s%s%s%s", p.label, online ? "+online_softmax" : "", welford ? "+welford" : "",
                                      cache ? "+row_cache" : "");
  Step steps[5];
  size_t n = 0;
  if (p.before) steps[n++] = (Step){"block_reduce", p.before};
  steps[n++] = (Step){p.pass, p.params_lua};
  if (online) steps[n++] = (Step){"online_softmax", "{}"};
  if (welford) steps[n++] = (Step){"welford", "{}"};
  if (cache) steps[n++] = (Step){"row_cache", cache};
  grid_add(in, seed, kernel, &no_fusions, label, steps, n, p.params_lua, false, false, a, idea);
}

/* row_cache's parameters for a block-per-row point (or a cluster's block: below): 16-byte steps a
 * thread in registers, as many as the row needs, at most 4096 / THREADS (and 16: 64 KiB of a block's
 * registers, within what 1024 threads may hold next to their other values), and the rest of a row of
 * `length` elements of `elem` bytes in shared memory, when it fits in 192 KiB; NULL for other points,
 * unknown lengths and rows too long. Steps the row does not fill would only hold registers: a bf16
 * row of 4096 elements over 128 threads needs 4 (rmsnorm_bf16's hand recipe, 0.0705 ms on the H200,
 * against 0.125 with 16). */
static const char *rows_cache(const RowsPoint *p, double length, int elem, KrArena *a) {
  int threads = 0, parts = 0;
  double per_step = 16.0 / elem;   /* a thread's elements a step */
  if (!strcmp(p->pass, "split_rows") && strstr(p->label, ",cluster") && length > 0 &&
      sscanf(strstr(p->label, "parts="), "parts=%d", &parts) == 1 && parts > 0) {
    /* A cluster's block keeps its part: 256 threads (split_rows' default block), up to 4 steps
     * each in registers, the rest in shared memory when two blocks an SM still fit. Four steps, not
     * eight: a softmax block keeping 4 steps and 48 KiB took 52 registers a thread and four blocks
     * an SM, and ran 5% faster on the H200 than one keeping 8 steps and 32 KiB (64 registers). */
    double part = ceil(length / parts / 32) * 32;
    int steps = (int)ceil(part / (per_step * 256));
    if (steps > 4) steps = 4;
    double rest = part - per_step * steps * 256;
    int kib = rest > 0 ? (int)((rest * elem + 1023) / 1024) : 0;
    return kib <= 96 ? kr_arena_printf(a, "{ steps = %d, shared = %d }", steps, kib) : NULL;
  }
  if (strcmp(p->pass, "block_reduce") || !strstr(p->label, ",row,") || sscanf(strstr(p->label, "threads="), "threads=%d", &threads) != 1 ||
      length <= 0)
    return NULL;
  int steps = threads > 0 && 4096 / threads < 16 ? 4096 / threads : 16;
  int need = (int)ceil(length / (per_step * threads));
  if (need >= 1 && need < steps) steps = need;
  double rest = length - per_step * steps * threads;
  int kib = rest > 0 ? (int)((rest * elem + 1023) / 1024) : 0;
  if (kib > 192) return NULL;
  return kr_arena_printf(a, "{ steps = %d, shared = %d }", steps, kib);
}

/* Whether the seed runs a row reduction's pass (KrPass.rows) on the kernel. */
static bool has_reduction_schedule(const KrRecipeRun *seed, const char *kernel) {
  for (size_t i = 0; i < seed->records.len; i++) {
    const KrPass *p = kr_pass_find(seed->records.data[i].pass);
    if (p && p->rows && strcmp(seed->records.data[i].kernel, kernel) == 0) return true;
  }
  return false;
}

/* The grid idea for `kernel` (pass "block_reduce"), or false when the kernel is no row reduction
 * or its seed has a reduction schedule already. The fused variants come first (each saves a sweep
 * over the rows); within them the schedules in the order the sizes suggest. */
static bool propose_rows_grid(const KrHeuristicInput *in, const KrRecipeRun *seed, const char *kernel,
                              KrArena *a, KrIdeaList *out) {
  if (has_reduction_schedule(seed, kernel)) return false;
  if (!applies(in, seed, "block_reduce", kernel, "{}", a)) return false;
  RowsInfo info;
  if (!rows_info(in, kernel, a, &info)) info = (RowsInfo){.map = KR_ROWS_BLOCK, .layout = KR_LAYOUT_BLOCK, .rows = -1, .length = -1};
  bool online = applies(in, seed, "online_softmax", kernel, "{}", a);
  bool welford = applies(in, seed, "welford", kernel, "{}", a);
  bool split = kr_pass_find("split_rows") != NULL;
  bool few = info.rows > 0 && info.rows < KR_HEURISTIC_FEW_ROWS;
  /* A thread-per-row original's spec counts about its row's work per thread: the row's length
   * when the loop's bound is not a parameter (CSR rows). */
  double length = info.length > 0 ? info.length : info.map == KR_ROWS_THREAD ? in->reduction_length : -1;
  bool warp_first = length > 0 && length < KR_HEURISTIC_SHORT_ROW && info.layout != KR_LAYOUT_COLUMN;
  bool warp_last = info.layout == KR_LAYOUT_COLUMN;   /* a warp per row would read across rows */
  const char *lay = info.layout == KR_LAYOUT_COLUMN ? "column" : "row";
  const char *other = info.map == KR_ROWS_THREAD ? (info.layout == KR_LAYOUT_COLUMN ? "row" : "column") : NULL;

  /* The schedules, best guess first. */
  KrVec(RowsPoint) pts = {0};
  if (split && few) {
    /* Few long rows: first the split that gives the SMs about four blocks each, then the others;
     * where the rows read a shared vector, each also with the rows streamed past it (block_reduce's
     * stream), first. */
    int first = 0;
    for (size_t i = 0; i < sizeof rows_split_parts / sizeof *rows_split_parts; i++)
      if (info.rows * rows_split_parts[i] <= 4.0 * KR_HEURISTIC_SMS) first = (int)i;
    for (int pass = 0; pass < (info.shared_vector ? 2 : 1); pass++)
      for (size_t k = 0; k < sizeof rows_split_parts / sizeof *rows_split_parts; k++) {
        size_t i = k == 0 ? (size_t)first : k <= (size_t)first ? k - 1 : k;
        bool stream = info.shared_vector && pass == 0;
        kr_vec_push(a, &pts, ((RowsPoint){"split_rows", kr_arena_printf(a, "split_rows,parts=%d%s", rows_split_parts[i],
                                                                          stream ? ",stream" : ""),
                                          kr_arena_printf(a, "{ parts = %d }", rows_split_parts[i]),
                                          stream ? "{ threads = 256, stream = true }" : NULL}));
      }
  }
  for (size_t i = 0; i < sizeof rows_block_threads / sizeof *rows_block_threads; i++) {
    RowsPoint b = {"block_reduce", kr_arena_printf(a, "block_reduce,%s,threads=%d", lay, rows_block_threads[i]),
                   kr_arena_printf(a, "{ threads = %d, layout = \"%s\" }", rows_block_threads[i], lay), NULL};
    bool w = i < sizeof rows_warp_threads / sizeof *rows_warp_threads;
    RowsPoint wp = {"warp_reduce", w ? kr_arena_printf(a, "warp_reduce,threads=%d", rows_warp_threads[i]) : NULL,
                    w ? kr_arena_printf(a, "{ threads = %d }", rows_warp_threads[i]) : NULL, NULL};
    if (w && warp_first) kr_vec_push(a, &pts, wp);
    kr_vec_push(a, &pts, b);
    if (w && !warp_first && !warp_last) kr_vec_push(a, &pts, wp);
  }
  for (size_t i = 0; warp_last && i < sizeof rows_warp_threads / sizeof *rows_warp_threads; i++)
    kr_vec_push(a, &pts, ((RowsPoint){"warp_reduce", kr_arena_printf(a, "warp_reduce,threads=%d", rows_warp_threads[i]),
                                      kr_arena_printf(a, "{ threads = %d }", rows_warp_threads[i]), NULL}));
  for (size_t i = 0; other && i < sizeof rows_block_threads / sizeof *rows_block_threads; i++)
    kr_vec_push(a, &pts, ((RowsPoint){"block_reduce", kr_arena_printf(a, "block_reduce,%s,threads=%d", other, rows_block_threads[i]),
                                      kr_arena_printf(a, "{ threads = %d, layout = \"%s\" }", rows_block_threads[i], other), NULL}));
  /* A row too long to keep in one block (64 KiB of 4-byte elements) over a cluster, each block's part
   * kept on chip: the row read once. Only with row_cache (below): without it a cluster split is a
   * plain split. */
  for (size_t i = 0; split && length * 4 > 64 * 1024 && i < sizeof rows_cluster_parts / sizeof *rows_cluster_parts; i++)
    kr_vec_push(a, &pts, ((RowsPoint){"split_rows", kr_arena_printf(a, "split_rows,parts=%d,cluster", rows_cluster_parts[i]),
                                      kr_arena_printf(a, "{ parts = %d, cluster = true }", rows_cluster_parts[i]), NULL}));
  if (split && !few)
    for (size_t i = 0; i < sizeof rows_split_parts / sizeof *rows_split_parts; i++)
      kr_vec_push(a, &pts, ((RowsPoint){"split_rows", kr_arena_printf(a, "split_rows,parts=%d", rows_split_parts[i]),
                                        kr_arena_printf(a, "{ parts = %d }", rows_split_parts[i]), NULL}));

  KrIdea idea = {.pass = "block_reduce", .kernel = kernel, .grid = true, .rows = info.rows > 0 ? info.rows : 0,
                 .across = info.layout == KR_LAYOUT_COLUMN};
  /* Fusions: both, each alone, none; only those that apply. */
  for (int f = 0; f < 4; f++) {
    bool fo = f == 0 || f == 1, fw = f == 0 || f == 2;
    if ((fo && !online) || (fw && !welford)) continue;
    for (size_t i = 0; i < pts.len; i++) {
      const char *cache = rows_cache(&pts.data[i], length, info.elem_bytes, a);
      if (cache) rows_point(in, seed, kernel, pts.data[i], fo, fw, cache, a, &idea);
      if (!strstr(pts.data[i].label, ",cluster")) rows_point(in, seed, kernel, pts.data[i], fo, fw, NULL, a, &idea);
    }
  }
  if (idea.variants.len == 0) return false;

  KrBuf why = {0};
  kr_buf_printf(&why, "schedule %s's row reduction (%s", kernel,
                info.map == KR_ROWS_THREAD ? "one thread walks each row now" : "a block per row through a shared-memory tree now");
  if (info.rows > 0) kr_buf_printf(&why, "; %.0f rows", info.rows);
  if (info.length > 0) kr_buf_printf(&why, "%s%.0f elements a row", info.rows > 0 ? " of " : "; ", info.length);
  else if (length > 0) kr_buf_printf(&why, "%sabout %.0f elements a row", info.rows > 0 ? " of " : "; ", length);
  if (info.rows > 0 || info.length > 0) kr_buf_puts(&why, " at the benchmark sizes");
  kr_buf_puts(&why, "): each row walked by many threads, a block (block_reduce) or a warp (warp_reduce) with "
                    "per-thread partials combined by warp shuffles");
  if (info.layout == KR_LAYOUT_COLUMN) kr_buf_puts(&why, ", 32 rows a block where the reads are contiguous across rows");
  if (split) kr_buf_puts(&why, few ? ", or a long row split over several blocks (split_rows: few rows for the SMs)"
                                   : ", or a long row split over several blocks (split_rows)");
  if (online) kr_buf_puts(&why, "; online_softmax fuses its max loop and the sum of exp(v - max) into one sweep "
                                "(the row read once less)");
  if (welford) kr_buf_puts(&why, "; welford fuses its sum, mean and squared-deviation loops into one sweep (the "
                                 "row read once less)");
  kr_buf_puts(&why, "; row_cache keeps a row read by several sweeps on chip where it fits (the row read once), a "
                    "long row's parts in the blocks of a cluster (split_rows with cluster = true)");
  kr_buf_puts(&why, online || welford ? "; the fused variants first (a grid, pruned by ptxas resources and ranked by a model)"
                                       : " (a grid, pruned by ptxas resources and ranked by a model)");
  idea.reason = kr_arena_printf(a, "%.*s (%s)", (int)why.len, why.data, bottleneck_note(in, a));
  kr_buf_free(&why);
  kr_vec_push(a, out, idea);
  return true;
}

static bool gridded(const KrIdeaList *out, const char *kernel) {
  for (size_t i = 0; i < out->len; i++)
    if (out->data[i].grid && strcmp(out->data[i].kernel, kernel) == 0) return true;
  return false;
}

/* Whether the seed lays out the kernel's rows (block_reduce, warp_reduce or split_rows), which a
 * fusion alone keeps. */
static bool rows_laid_out(const KrRecipeRun *seed, const char *kernel) {
  return already_done(seed, "block_reduce", kernel) || already_done(seed, "warp_reduce", kernel) ||
         already_done(seed, "split_rows", kernel);
}

/* The ideas of pass p for each kernel, as its search facts say (KrSearchFacts.role); a schedule of
 * kernels[k] (a grid, or a schedule pass alone) starts with fus[k]'s fusions. */
static void propose_pass(const KrHeuristicInput *in, const KrRecipeRun *seed, const KrPass *p, const char **kernels,
                         const Fusions *fus, KrArena *a, KrIdeaList *out) {
  const KrSearchFacts *f = &p->search;
  for (size_t k = 0; k < in->nkernels; k++) {
    if (already_done(seed, p->name, kernels[k])) continue;
    if (f->role == KR_SEARCH_FAMILY && f->grid == KR_GRID_ROWS) {   /* block_reduce, warp_reduce and split_rows */
      propose_rows_grid(in, seed, kernels[k], a, out);
      continue;
    }
    /* Else the pass alone where its grid is not offered. */
    if (f->role == KR_SEARCH_FAMILY && f->grid == KR_GRID_CONTRACTION && propose_grid(in, seed, kernels[k], &fus[k], a, out))
      continue;
    if (f->role == KR_SEARCH_FAMILY && f->grid == KR_GRID_TENSOR && propose_tc_grid(in, seed, kernels[k], &fus[k], a, out))
      continue;
    /* A step of a grid alone only where the grid was not offered (its schedules hold it), and a
     * fusion only on a seed that lays out the rows already. */
    if (f->role == KR_SEARCH_IN_FAMILY && (gridded(out, kernels[k]) || (p->rows && !rows_laid_out(seed, kernels[k]))))
      continue;
    KrIdea idea = {.pass = p->name, .kernel = kernels[k]};
    bool fused = p->schedule && fus[k].n > 0;
    for (size_t g = 0; g < KR_SEARCH_POINTS && f->points[g].label; g++) {
      if (fused) {
        Step step = {p->name, f->points[g].params};
        grid_add(in, seed, kernels[k], &fus[k], f->points[g].label, &step, 1, step.params, false, opts_in(in, p), a, &idea);
        continue;
      }
      if (!applies(in, seed, p->name, kernels[k], f->points[g].params, a)) continue;
      KrIdeaVariant v = {.label = f->points[g].label, .params_lua = f->points[g].params};
      v.recipe = extend_recipe(in->seed_recipe, p->name, kernels[k], v.label, v.params_lua, in->round, opts_in(in, p),
                               a);
      kr_vec_push(a, &idea.variants, v);
    }
    if (idea.variants.len == 0) continue;
    char *what = kr_arena_printf(a, f->reason, kernels[k]);
    idea.reason = kr_arena_printf(a, "%s%s (%s)", what, fused ? fusions_note(&fus[k], a) : "", bottleneck_note(in, a));
    kr_vec_push(a, out, idea);
  }
}

/* The bottleneck that orders the passes: Nsight Compute's class when the seed was profiled, else
 * the intensity against the ridge point. */
static KrSearchBound bound_of(const KrHeuristicInput *in) {
  if (in->bound && strcmp(in->bound, "compute-bound") == 0) return KR_SEARCH_COMPUTE;
  if (in->bound && strcmp(in->bound, "latency-bound") == 0) return KR_SEARCH_LATENCY;
  if (in->bound) return KR_SEARCH_MEMORY;
  return kr_heuristic_compute_bound(in->intensity) ? KR_SEARCH_COMPUTE : KR_SEARCH_MEMORY;
}

/* A kernel that calls the file's function-like macros, reads a parameter through a pointer local
 * offset into it, or declares a local without a value, does not lift (the nest does not see through
 * any of them), so no schedule family would be offered for it. The round's ideas then start from the
 * seed with the passes that prepare the kernel for the nest (KrSearchFacts.prepares: expand_macros,
 * join_declarations, inline_pointers; exact steps) applied where they apply, on kernels the seed has
 * not taken past the nest, in the registry's order: the seed's recipe so extended, in *recipe, and
 * its run, which the caller frees; NULL when none applies (or the extended seed does not apply). */
static KrRecipeRun *prepared_seed(const KrHeuristicInput *in, const KrRecipeRun *seed, const char **kernels,
                                  KrArena *a, const char **recipe) {
  const char *r = in->seed_recipe ? in->seed_recipe : "";
  KrRecipeRun *run = NULL;
  for (size_t i = 0; i < kr_pass_count(); i++) {
    const KrPass *p = kr_pass_at(i);
    if (!p->search.prepares) continue;
    const char *before = r;
    for (size_t k = 0; k < in->nkernels; k++) {
      if (already_done(run ? run : seed, p->name, kernels[k]) || past_the_nest(seed, kernels[k]) ||
          !applies(in, run ? run : seed, p->name, kernels[k], "{}", a))
        continue;
      size_t len = strlen(r);
      r = kr_arena_printf(a, "%s%s-- round %d: %s on %s (so that the nest reads it)\nkr.kernel(\"%s\"):apply(\"%s\", {})\n",
                          r, len && r[len - 1] != '\n' ? "\n" : "", in->round, p->name, kernels[k], kernels[k], p->name);
    }
    if (r == before) continue;
    KrRecipeRun *next = run_seed(r, in);   /* the next preparing pass probes this one's output */
    if (run) kr_recipe_run_free(run);
    if (!(run = next)) return NULL;
  }
  if (run) *recipe = r;
  return run;
}

KrStatus kr_heuristic_propose(const KrHeuristicInput *in, KrArena *arena, KrIdeaList *out,
                              KrDiags *diags) {
  memset(out, 0, sizeof *out);
  bool seeded = in->seed_recipe && in->seed_recipe[0];
  bool given = in->seed_run && in->seed_run->doc;   /* the search made the seed already */
  KrRecipeRun *made = given ? NULL : run_seed(seeded ? in->seed_recipe : "", in);
  const KrRecipeRun *seed = given ? in->seed_run : made;
  if (!seed && seeded) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "heuristic: the seed recipe does not apply");
    return KR_ERR;
  }
  if (!seed) return KR_OK;   /* the source itself does not parse: no pass applies */
  /* The kernels still launched, in the spec's order (the order fusions are tried in), and shuffled. */
  const char **launched = kr_arena_alloc(arena, (in->nkernels + 1) * sizeof *launched);
  const char **kernels = kr_arena_alloc(arena, (in->nkernels + 1) * sizeof *kernels);
  size_t nk = 0;
  for (size_t k = 0; k < in->nkernels; k++)
    if (!dropped(seed, in->kernels[k])) launched[nk++] = in->kernels[k];
  memcpy(kernels, launched, nk * sizeof *kernels);
  shuffle(kernels, nk, in->seed);
  KrHeuristicInput live = *in;   /* the kernels still launched */
  live.kernels = kernels, live.nkernels = nk;
  in = &live;
  KrHeuristicInput prepared;
  const char *prepared_recipe = NULL;
  KrRecipeRun *prepared_run = prepared_seed(in, seed, kernels, arena, &prepared_recipe);
  if (prepared_run) {
    prepared = *in;
    prepared.seed_recipe = prepared_recipe;
    prepared.seed_run = prepared_run;
    if (!in->seed_recipe || !in->seed_recipe[0])   /* round 1: the source with the preparing passes */
      prepared.lift_text = prepared_run->output_text, prepared.lift_len = prepared_run->output_len;
    in = &prepared;
    seed = prepared_run;
  }
  Fusions *fus = kr_arena_alloc(arena, (in->nkernels + 1) * sizeof *fus);
  for (size_t k = 0; k < in->nkernels; k++) epilogue_fusions(in, seed, kernels[k], launched, arena, &fus[k]);
  const KrPass **order = kr_arena_alloc(arena, (kr_pass_count() + 1) * sizeof *order);
  size_t n = order_of(bound_of(in), order);
  for (size_t i = 0; i < n; i++) {
    if (order[i]->precision == KR_PRECISION_LOWERS && !in->allow_lowering) continue;
    if (order[i]->search.few_tiles && !few_tiles(in)) continue;
    propose_pass(in, seed, order[i], kernels, fus, arena, out);
  }
  if (made) kr_recipe_run_free(made);
  if (prepared_run) kr_recipe_run_free(prepared_run);
  return KR_OK;
}
