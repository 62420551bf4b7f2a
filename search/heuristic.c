/* search/heuristic.c: the built-in proposer (search/heuristic.h). Ideas are (pass, kernel)
 * pairs that are not yet in the seed recipe, whose parameterisations were each tried after the
 * seed (the seed and the pass run as one recipe); the bottleneck orders the passes. */
#include "search/heuristic.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/model.h"
#include "frontend/rows.h"
#include "frontend/tree.h"
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

/* `k` (a launch's callee, template arguments stripped) into out[0..*len) unless there already. */
static void add_kernel_name(const char **out, size_t *len, const char *k, KrArena *arena) {
  const char *lt = strchr(k, '<');
  char *name = kr_arena_strndup(arena, k, lt ? (size_t)(lt - k) : strlen(k));
  size_t end = strlen(name);
  while (end > 0 && name[end - 1] == ' ') name[--end] = '\0';
  bool seen = false;
  for (size_t j = 0; j < *len; j++) seen = seen || strcmp(out[j], name) == 0;
  if (!seen) out[(*len)++] = name;
}

/* The kernels the spec's entry launches: the launches in host functions whose bodies the kernels'
 * build keeps for the entry (kr_model_host_bodies), in source order. */
static void entry_kernels(const KrSpec *spec, const char *text, size_t len, const KrBuildFlags *build, KrArena *arena,
                          const char ***names, size_t *n) {
  KrDiags *d = kr_diags_new();
  KrSource src;
  KrTree *t = NULL;
  *names = NULL, *n = 0;
  if (text && kr_source_from_text(&src, spec->source, text, len, arena, d) == KR_OK &&
      (kr_source_use(&src, build), t = kr_tree_parse(&src, d))) {
    const KrModel *m = kr_model_build(t, arena);
    KrSpan *drop;
    size_t ndrop;
    const char *keep = spec->entry->name;
    kr_model_host_bodies(t, &keep, 1, arena, &drop, &ndrop);
    const char **out = kr_arena_alloc(arena, ((m ? m->launches.len : 0) + 1) * sizeof *out);
    for (size_t i = 0; m && i < m->launches.len; i++)
      if (kr_model_launch_kept(t, &m->launches.data[i], drop, ndrop)) add_kernel_name(out, n, m->launches.data[i].kernel, arena);
    *names = out;
  }
  if (t) kr_tree_free(t);
  kr_diags_free(d);
}

void kr_heuristic_kernels(const KrSpec *spec, const char *text, size_t len, const KrBuildFlags *build, KrArena *arena,
                          const char ***names, size_t *n) {
  if (spec->entry) {
    entry_kernels(spec, text, len, build, arena, names, n);
    return;
  }
  const char **out = kr_arena_alloc(arena, (spec->launches.len + 1) * sizeof *out);
  size_t len_out = 0;
  for (size_t i = 0; i < spec->launches.len; i++) add_kernel_name(out, &len_out, spec->launches.data[i].kernel, arena);
  *names = out;
  *n = len_out;
}

/* ---- Pass catalogue: parameter grids and reasons ---------------------------------------------- */

#define KR_HEURISTIC_SMS 132       /* the H200's */
#define KR_HEURISTIC_LONG_K 1024   /* multiply-adds per output worth splitting over blocks */

enum { KR_PLAN_GRIDS = 5 };   /* the most parameterisations a pass is tried with */

typedef struct Grid {
  const char *label, *params_lua;
} Grid;

typedef struct PassPlan {
  const char *pass;
  const char *what;          /* the reason's text; %s is the kernel */
  Grid grid[KR_PLAN_GRIDS];  /* its parameterisations, the most promising first */
} PassPlan;

static const PassPlan plans[] = {
  {"tile", "stage the operands of %s's contraction in shared memory, one block per output tile, so "
           "each loaded element feeds a whole tile row or column",
   {{"128x128,k=16", "{ block = {128, 128}, k = 16 }"}, {"64x64,k=16", "{ block = {64, 64}, k = 16 }"},
    {"128x64,k=16", "{ block = {128, 64}, k = 16 }"}}},
  {"implicit_gemm", "view %s's convolution as a GEMM (output positions by output channels, the window "
                    "flattened as k): block tiles gathered into shared memory, several outputs per thread in registers",
   {{"128x96,k=16,t=8x6", "{ block = {128, 96}, k = 16, thread = {8, 6} }"},
    {"128x64,k=16,t=8x4", "{ block = {128, 64}, k = 16, thread = {8, 4} }"},
    {"64x64,k=16,t=4x4", "{ block = {64, 64}, k = 16, thread = {4, 4} }"}}},
  {"register_tile", "compute several outputs per thread of %s as an outer product in registers, "
                    "so each shared-memory read feeds several multiply-adds",
   {{"8x8", "{ thread = {8, 8} }"}, {"4x4", "{ thread = {4, 4} }"}, {"defaults", "{}"}}},
  {"double_buffer", "overlap the next k tiles' loads of %s (cp.async) with this tile's math",
   {{"stages=2", "{ stages = 2 }"}, {"stages=3", "{ stages = 3 }"}}},
  {"tensor_core", "compute the products of %s's contraction on the tensor cores (PTX mma.sync fed by ldmatrix, or "
                  "Hopper's wgmma with k tiles of 128 bytes), each warp a tile of the block's outputs; fp32 operands in "
                  "tf32 or, fp32-grade, 3xtf32 (both lower precision: opted in), 16-bit operands as they are",
   {{"auto", "{}"}, {"tf32", "{ precision = \"tf32\" }"}, {"auto,wgmma", "{ api = \"wgmma\", k = 32 }"},
    {"tf32,wgmma", "{ precision = \"tf32\", api = \"wgmma\", k = 32 }"},
    {"16-bit,wgmma", "{ api = \"wgmma\", k = 64 }"}}},
  {"split_k", "split the k loop of %s over several blocks per output tile, whose partial results "
              "the last block of the tile combines in a fixed order: its output has fewer 128 x 128 "
              "tiles than the GPU has SMs and a long reduction",
   {{"parts=4", "{ parts = 4 }"}, {"parts=8", "{ parts = 8 }"}, {"parts=2", "{ parts = 2 }"}}},
  {"persistent", "keep %s's blocks resident, each walking several output tiles, so that a block's setup (divisors, "
                 "tables, the pipeline's first loads) is paid once an SM instead of once a tile",
   {{"defaults", "{}"}}},
  {"block_reduce", "schedule %s's row reduction (a grid of block_reduce, warp_reduce and split_rows schedules)",
   {{"defaults", "{}"}}},
  {"online_softmax", "fuse the max loop of %s's rows and the sum of exp(v - max) after it into one sweep "
                     "with a rescaled running sum (the row read once less), keeping its reduction schedule",
   {{"defaults", "{}"}}},
  {"welford", "fuse the sum, mean and squared-deviation loops of %s's rows into one sweep of Welford's update "
              "(the row read once less), keeping its reduction schedule",
   {{"defaults", "{}"}}},
  {"coalesce", "swap the x and y of %s's thread map and launch so that a warp writes neighbouring "
               "elements of the output", {{"defaults", "{}"}}},
  {"accumulate", "accumulate %s's reduction in a register instead of in its output element in "
                 "global memory", {{"defaults", "{}"}}},
  {"restrict", "mark the pointer parameters of %s __restrict__ (const where only read), so "
               "loads can be reordered and cached",
   {{"defaults", "{}"}}},
  {"ldg", "route the read-only loads of %s through the read-only data cache",
   {{"defaults", "{}"}}},
  {"vectorize", "load and store the arrays of %s as vectors, fewer and wider memory transactions",
   {{"width=4", "{ width = 4 }"}, {"width=2", "{ width = 2 }"}}},
  {"index_precompute", "hoist the invariant index arithmetic of %s out of its loops",
   {{"min_ops=1", "{ min_ops = 1 }"}, {"min_ops=2", "{ min_ops = 2 }"}}},
  {"unroll", "unroll the inner loops of %s for more independent work per iteration",
   {{"factor=4", "{ factor = 4 }"}, {"factor=2", "{ factor = 2 }"}, {"full", "{ factor = 0 }"}}},
  {"fast_math", "use fast-math intrinsics in %s (lowers precision: opted in)",
   {{"defaults", "{}"}}},
};

/* The schedule passes come first in every order: they apply only to kernels whose nest is a
 * contraction (tile ... split_k; implicit_gemm for a convolution) or a row reduction (block_reduce: a grid of block_reduce,
 * warp_reduce and split_rows schedules with online_softmax / welford; online_softmax and welford
 * alone on a seed that has a reduction schedule already), and there they are what changes the time
 * (text passes move such kernels by less than a percent on the H200,
 * bench/results/optimize-2026-11-29.json). A row reduction reads its rows from memory, so its
 * passes lead the memory-bound and latency-bound orders; on a compute-bound one they follow the
 * contraction's. */
static const char *const memory_order[] = {"block_reduce", "online_softmax", "welford", "implicit_gemm", "tile", "register_tile", "double_buffer", "tensor_core",
                                           "split_k", "persistent", "coalesce", "accumulate", "restrict", "ldg",
                                           "vectorize", "index_precompute", "unroll", "fast_math"};
static const char *const compute_order[] = {"implicit_gemm", "tile", "register_tile", "double_buffer", "tensor_core", "split_k", "persistent", "block_reduce", "online_softmax",
                                            "welford", "coalesce", "accumulate", "unroll",
                                            "index_precompute", "restrict", "ldg", "vectorize", "fast_math"};
/* Neither unit near its peak: more independent work in flight per thread first (unrolled loops,
 * wider accesses), then cheaper loads. */
static const char *const latency_order[] = {"block_reduce", "online_softmax", "welford", "implicit_gemm", "tile", "register_tile", "double_buffer", "tensor_core",
                                            "split_k", "persistent", "coalesce", "accumulate", "unroll",
                                            "vectorize", "ldg", "index_precompute", "restrict", "fast_math"};

static const PassPlan *plan_of(const char *pass) {
  for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
    if (strcmp(plans[i].pass, pass) == 0) return &plans[i];
  return NULL;
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

/* Runs `recipe` over text; returns the run (caller frees) or NULL when the recipe failed, with
 * the first error in *why (from `a`) when why is not NULL. */
static KrRecipeRun *run_recipe_why(const char *recipe, const KrHeuristicInput *in, KrArena *a, const char **why) {
  KrRecipeOptions ro;
  kr_recipe_options_init(&ro, NULL);
  ro.build = in->build;
  KrDiags *d = kr_diags_new();
  KrRecipeRun *run = NULL;
  if (kr_recipe_apply("heuristic.lua", recipe, strlen(recipe), in->source_path, in->source_text, in->source_len,
                      &ro, &run, d) !=
      KR_OK) {
    run = NULL;
    const char *m = kr_diags_first_error(d);
    if (why) *why = kr_arena_strdup(a, m ? m : "the recipe failed");
  }
  kr_diags_free(d);
  return run;
}

static KrRecipeRun *run_recipe(const char *recipe, const KrHeuristicInput *in) {
  return run_recipe_why(recipe, in, NULL, NULL);
}

/* Whether the pass applies after the seed: the seed and the pass run as one recipe over the
 * original, so that a schedule pass finds the schedule and the lifted text the seed's schedule
 * passes left in the document (a fresh document of the seed's output would not lift: its kernel
 * already uses shared memory). */
/* Whether a pass's ideas run under kr.allow_lowering(): fast_math's always (it is only offered when
 * lowering is allowed), tensor_core's when it is (else only its exact forms apply: 16-bit operands). */
static bool opts_in(const KrHeuristicInput *in, const char *pass) {
  return strcmp(pass, "fast_math") == 0 || (strcmp(pass, "tensor_core") == 0 && in->allow_lowering);
}

static bool applies(const KrHeuristicInput *in, size_t seed_records, const char *pass,
                    const char *kernel, const char *params_lua, KrArena *a) {
  const char *seed = in->seed_recipe ? in->seed_recipe : "";
  size_t n = strlen(seed);
  const char *probe = kr_arena_printf(a, "%s%s%skr.kernel(\"%s\"):try(\"%s\", %s)\n", seed,
                                      n && seed[n - 1] != '\n' ? "\n" : "",
                                      opts_in(in, pass) ? "kr.allow_lowering()\n" : "",
                                      kernel, pass, params_lua);
  KrRecipeRun *run = run_recipe(probe, in);
  bool ok = run && run->records.len > seed_records;
  if (run) kr_recipe_run_free(run);
  return ok;
}

static bool already_done(const KrRecipeRun *seed, const char *pass, const char *kernel) {
  for (size_t i = 0; seed && i < seed->records.len; i++)
    if (strcmp(seed->records.data[i].pass, pass) == 0 &&
        strcmp(seed->records.data[i].kernel, kernel) == 0)
      return true;
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

/* sm_90 fp32 SGEMM-like tiles, the likeliest first (the order only breaks ties of the model). */
static const int grid_block[][2] = {{128, 128}, {128, 64}, {64, 128}, {64, 64}};
static const int grid_k[] = {16, 8, 32};
static const int grid_thread[][2] = {{8, 8}, {8, 4}, {4, 8}, {4, 4}};
static const int grid_stages[] = {2, 1, 3};

static const char *grid_reason =
  "schedule %s's contraction: block tiles with the operands staged in shared memory, a register "
  "tile of outputs per thread and, with 2 or more stages, the k tiles loaded by cp.async ahead of "
  "the math (a grid of tile sizes, pruned by ptxas resources and ranked by a model)";

/* The schedule's lines after the seed: one k:apply per pass. */
static const char *grid_lines(const char *kernel, const int *b, int k, const int *t, int stages, KrArena *a) {
  const char *l = kr_arena_printf(a, "kr.kernel(\"%s\"):apply(\"tile\", { block = {%d, %d}, k = %d })\n"
                                     "kr.kernel(\"%s\"):apply(\"register_tile\", { thread = {%d, %d} })\n",
                                  kernel, b[0], b[1], k, kernel, t[0], t[1]);
  if (stages > 1)
    l = kr_arena_printf(a, "%skr.kernel(\"%s\"):apply(\"double_buffer\", { stages = %d })\n", l, kernel, stages);
  return l;
}

/* Whether the seed and the lines apply, every line's pass included; else the reason in *why. */
static bool grid_applies(const KrHeuristicInput *in, size_t seed_records, const char *lines, size_t nlines,
                         bool static_shared, KrArena *a, const char **why) {
  const char *seed = in->seed_recipe ? in->seed_recipe : "";
  size_t n = strlen(seed);
  const char *probe = kr_arena_printf(a, "%s%s%s", seed, n && seed[n - 1] != '\n' ? "\n" : "", lines);
  KrRecipeRun *run = run_recipe_why(probe, in, a, why);
  if (!run) return false;
  bool ok = run->records.len == seed_records + nlines;
  /* With static_shared (the contraction's SIMT grid), the grid keeps to static shared memory (48 KiB):
   * the schedules measured best on the H200 fit there (bench/results/schedule-2026-12-01b.json), and
   * deeper ones cost the emulator's checks most. (A row reduction's row_cache is dynamic by design.) */
  const char *last = ok ? run->records.data[run->records.len - 1].launch.shmem : NULL;
  const char *shmem = last ? kr_arena_strdup(a, last) : NULL;   /* the run's strings go with it */
  bool dynamic = static_shared && shmem && strcmp(shmem, "0") != 0;
  kr_recipe_run_free(run);
  if (!ok) *why = "not every pass of the schedule applied";
  else if (dynamic) *why = kr_arena_printf(a, "tile: its tiles need %s bytes of shared memory, beyond the 48 KiB the grid "
                                              "keeps to (static shared memory)", shmem);
  return ok && !dynamic;
}

/* A refusal's reason without the recipe's and the source's locations: "tile: the staged tiles
 * need ..." (search/prune.h's reading of the diagnostic), else the diagnostic as it is. */
static const char *reason_of(const char *why, KrArena *a) {
  KrPassRefusal r;
  return kr__pass_refusal(why, a, &r) ? kr_arena_printf(a, "%s: %s", r.pass, r.reason) : why;
}

/* One point of the grid: a variant of the idea, or a refusal. */
static void grid_point(const KrHeuristicInput *in, size_t seed_records, const char *kernel, const int *b, int k,
                       const int *t, int stages, KrArena *a, KrIdea *idea) {
  const char *label = kr_arena_printf(a, "%dx%d,k=%d,%dx%d,stages=%d", b[0], b[1], k, t[0], t[1], stages);
  const char *lines = grid_lines(kernel, b, k, t, stages, a), *why = NULL;
  if (!grid_applies(in, seed_records, lines, stages > 1 ? 3 : 2, true, a, &why)) {
    KrIdeaRefusal r = {label, reason_of(why, a)};
    kr_vec_push(a, &idea->refused, r);
    return;
  }
  const char *seed = in->seed_recipe ? in->seed_recipe : "";
  size_t n = strlen(seed);
  KrIdeaVariant v = {.label = label, .params_lua = kr_arena_printf(a, "{ block = {%d, %d}, k = %d }", b[0], b[1], k)};
  v.recipe = kr_arena_printf(a, "%s%s-- round %d: schedule %s on %s\n%s", seed, n && seed[n - 1] != '\n' ? "\n" : "",
                             in->round, label, kernel, lines);
  kr_vec_push(a, &idea->variants, v);
}

/* The grid idea for `kernel`, or false when the kernel is not a contraction after the seed. */
static bool propose_grid(const KrHeuristicInput *in, const KrRecipeRun *seed_run, const char *kernel,
                         KrArena *a, KrIdeaList *out) {
  size_t seed_records = seed_run ? seed_run->records.len : 0;
  if (!applies(in, seed_records, "register_tile", kernel, "{}", a)) return false;
  KrIdea idea = {.pass = "tile", .kernel = kernel, .grid = true};
  for (size_t b = 0; b < sizeof grid_block / sizeof grid_block[0]; b++)
    for (size_t k = 0; k < sizeof grid_k / sizeof grid_k[0]; k++)
      for (size_t t = 0; t < sizeof grid_thread / sizeof grid_thread[0]; t++)
        for (size_t st = 0; st < sizeof grid_stages / sizeof grid_stages[0]; st++)
          grid_point(in, seed_records, kernel, grid_block[b], grid_k[k], grid_thread[t], grid_stages[st], a, &idea);
  if (idea.variants.len == 0) return false;
  idea.reason = kr_arena_printf(a, "%s (%s)", kr_arena_printf(a, grid_reason, kernel), bottleneck_note(in, a));
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

/* Lifts `kernel` of the original source into its row nest; false when it is none. The row count
 * (the guard's bound) and the first row loop's length are evaluated at the spec's benchmark sizes
 * when the spec is known and they are written in the kernel's parameters. */
static bool rows_info(const KrHeuristicInput *in, const char *kernel, KrArena *a, RowsInfo *info) {
  *info = (RowsInfo){.rows = -1, .length = -1};
  KrDiags *d = kr_diags_new();
  KrSource src;
  KrTree *t = NULL;
  bool ok = false;
  if (kr_source_from_text(&src, in->source_path, in->source_text, in->source_len, a, d) == KR_OK &&
      (kr_source_use(&src, in->build), t = kr_tree_parse(&src, d))) {
    const KrModel *m = kr_model_build(t, a);
    const KrKernel *k = m ? kr_model_find(m, kernel) : NULL;
    const KrRows *r = k ? kr_rows_lift(t, k, a, d) : NULL;
    if (r) {
      ok = true;
      info->map = r->map;
      info->layout = kr_reduction_layout(r, t);
      info->shared_vector = reads_shared_vector(t, r, a);
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

static void rows_point(const KrHeuristicInput *in, size_t seed_records, const char *kernel, RowsPoint p,
                       bool online, bool welford, const char *cache, KrArena *a, KrIdea *idea) {
  const char *label = kr_arena_printf(a, "%s%s%s%s", p.label, online ? "+online_softmax" : "", welford ? "+welford" : "",
                                      cache ? "+row_cache" : "");
  const char *lines = kr_arena_printf(a, "%skr.kernel(\"%s\"):apply(\"%s\", %s)\n%s%s%s",
                                      p.before ? kr_arena_printf(a, "kr.kernel(\"%s\"):apply(\"block_reduce\", %s)\n", kernel, p.before) : "",
                                      kernel, p.pass, p.params_lua,
                                      online ? kr_arena_printf(a, "kr.kernel(\"%s\"):apply(\"online_softmax\", {})\n", kernel) : "",
                                      welford ? kr_arena_printf(a, "kr.kernel(\"%s\"):apply(\"welford\", {})\n", kernel) : "",
                                      cache ? kr_arena_printf(a, "kr.kernel(\"%s\"):apply(\"row_cache\", %s)\n", kernel, cache) : "");
  const char *why = NULL;
  if (!grid_applies(in, seed_records, lines, 1 + (p.before != NULL) + online + welford + (cache != NULL), false, a,
                    &why)) {
    KrIdeaRefusal r = {label, reason_of(why, a)};
    kr_vec_push(a, &idea->refused, r);
    return;
  }
  const char *seed = in->seed_recipe ? in->seed_recipe : "";
  size_t n = strlen(seed);
  KrIdeaVariant v = {.label = label, .params_lua = p.params_lua};
  v.recipe = kr_arena_printf(a, "%s%s-- round %d: schedule %s on %s\n%s", seed, n && seed[n - 1] != '\n' ? "\n" : "",
                             in->round, label, kernel, lines);
  kr_vec_push(a, &idea->variants, v);
}

/* row_cache's parameters for a block-per-row point (or a cluster's block: below): 4096 / THREADS 16-byte steps a thread in
 * registers (at most 16: 64 KiB of a block's registers, within what 1024 threads may hold next to
 * their other values) and the rest of a row of `length` elements (4 bytes each assumed) in shared
 * memory, when it fits in 192 KiB; NULL for other points, unknown lengths and rows too long. */
static const char *rows_cache(const RowsPoint *p, double length, KrArena *a) {
  int threads = 0, parts = 0;
  if (!strcmp(p->pass, "split_rows") && strstr(p->label, ",cluster") && length > 0 &&
      sscanf(strstr(p->label, "parts="), "parts=%d", &parts) == 1 && parts > 0) {
    /* A cluster's block keeps its part: 256 threads (split_rows' default block), up to 4 steps
     * each in registers, the rest in shared memory when two blocks an SM still fit. Four steps, not
     * eight: a softmax block keeping 4 steps and 48 KiB took 52 registers a thread and four blocks
     * an SM, and ran 5% faster on the H200 than one keeping 8 steps and 32 KiB (64 registers). */
    double part = ceil(length / parts / 32) * 32;
    int steps = (int)ceil(part / (4.0 * 256));
    if (steps > 4) steps = 4;
    double rest = part - 4.0 * steps * 256;
    int kib = rest > 0 ? (int)((rest * 4 + 1023) / 1024) : 0;
    return kib <= 96 ? kr_arena_printf(a, "{ steps = %d, shared = %d }", steps, kib) : NULL;
  }
  if (strcmp(p->pass, "block_reduce") || !strstr(p->label, ",row,") || sscanf(strstr(p->label, "threads="), "threads=%d", &threads) != 1 ||
      length <= 0)
    return NULL;
  int steps = threads > 0 && 4096 / threads < 16 ? 4096 / threads : 16;
  double rest = length - 4.0 * steps * threads;
  int kib = rest > 0 ? (int)((rest * 4 + 1023) / 1024) : 0;
  if (kib > 192) return NULL;
  return kr_arena_printf(a, "{ steps = %d, shared = %d }", steps, kib);
}

static bool has_reduction_schedule(const KrRecipeRun *seed, const char *kernel) {
  return already_done(seed, "block_reduce", kernel) || already_done(seed, "warp_reduce", kernel) ||
         already_done(seed, "split_rows", kernel) || already_done(seed, "online_softmax", kernel) ||
         already_done(seed, "welford", kernel) || already_done(seed, "row_cache", kernel);
}

/* The grid idea for `kernel` (pass "block_reduce"), or false when the kernel is no row reduction
 * or its seed has a reduction schedule already. The fused variants come first (each saves a sweep
 * over the rows); within them the schedules in the order the sizes suggest. */
static bool propose_rows_grid(const KrHeuristicInput *in, const KrRecipeRun *seed_run, const char *kernel,
                              KrArena *a, KrIdeaList *out) {
  size_t seed_records = seed_run ? seed_run->records.len : 0;
  if (has_reduction_schedule(seed_run, kernel)) return false;
  if (!applies(in, seed_records, "block_reduce", kernel, "{}", a)) return false;
  RowsInfo info;
  if (!rows_info(in, kernel, a, &info)) info = (RowsInfo){.map = KR_ROWS_BLOCK, .layout = KR_LAYOUT_BLOCK, .rows = -1, .length = -1};
  bool online = applies(in, seed_records, "online_softmax", kernel, "{}", a);
  bool welford = applies(in, seed_records, "welford", kernel, "{}", a);
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

  KrIdea idea = {.pass = "block_reduce", .kernel = kernel, .grid = true, .rows = info.rows > 0 ? info.rows : 0};
  /* Fusions: both, each alone, none; only those that apply. */
  for (int f = 0; f < 4; f++) {
    bool fo = f == 0 || f == 1, fw = f == 0 || f == 2;
    if ((fo && !online) || (fw && !welford)) continue;
    for (size_t i = 0; i < pts.len; i++) {
      const char *cache = rows_cache(&pts.data[i], length, a);
      if (cache) rows_point(in, seed_records, kernel, pts.data[i], fo, fw, cache, a, &idea);
      if (!strstr(pts.data[i].label, ",cluster")) rows_point(in, seed_records, kernel, pts.data[i], fo, fw, NULL, a, &idea);
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

static void propose_pass(const KrHeuristicInput *in, const KrRecipeRun *seed_run,
                         const PassPlan *plan, const char **kernels, KrArena *a,
                         KrIdeaList *out) {
  bool tile = strcmp(plan->pass, "tile") == 0;
  bool alone = strcmp(plan->pass, "register_tile") == 0 || strcmp(plan->pass, "double_buffer") == 0;
  bool rows = strcmp(plan->pass, "block_reduce") == 0;
  bool fusion = strcmp(plan->pass, "online_softmax") == 0 || strcmp(plan->pass, "welford") == 0;
  for (size_t k = 0; k < in->nkernels; k++) {
    if (already_done(seed_run, plan->pass, kernels[k])) continue;
    if (tile && propose_grid(in, seed_run, kernels[k], a, out)) continue;
    if (rows) {   /* the grid holds block_reduce, warp_reduce and split_rows */
      propose_rows_grid(in, seed_run, kernels[k], a, out);
      continue;
    }
    /* A fusion alone only on a seed that schedules the rows already (else the grid holds it). */
    if (fusion && (gridded(out, kernels[k]) || !(already_done(seed_run, "block_reduce", kernels[k]) ||
                                                 already_done(seed_run, "warp_reduce", kernels[k]) ||
                                                 already_done(seed_run, "split_rows", kernels[k]))))
      continue;
    if (alone && gridded(out, kernels[k])) continue;   /* the grid's schedules hold it */
    KrIdea idea = {.pass = plan->pass, .kernel = kernels[k]};
    for (size_t g = 0; g < KR_PLAN_GRIDS && plan->grid[g].label; g++) {
      if (!applies(in, seed_run ? seed_run->records.len : 0, plan->pass, kernels[k],
                   plan->grid[g].params_lua, a))
        continue;
      KrIdeaVariant v = {.label = plan->grid[g].label, .params_lua = plan->grid[g].params_lua};
      v.recipe = extend_recipe(in->seed_recipe, plan->pass, kernels[k], v.label, v.params_lua,
                               in->round, opts_in(in, plan->pass), a);
      kr_vec_push(a, &idea.variants, v);
    }
    if (idea.variants.len == 0) continue;
    char *what = kr_arena_printf(a, plan->what, kernels[k]);
    idea.reason = kr_arena_printf(a, "%s (%s)", what, bottleneck_note(in, a));
    kr_vec_push(a, out, idea);
  }
}

/* split_k pays only when the output tiles alone leave SMs idle and each output's reduction is
 * long enough to be worth splitting (a short one is over before the parts' combine pays back). */
static bool few_tiles(const KrHeuristicInput *in) {
  return in->output_tiles > 0 && in->output_tiles < KR_HEURISTIC_SMS && in->reduction_length >= KR_HEURISTIC_LONG_K;
}

KrStatus kr_heuristic_propose(const KrHeuristicInput *in, KrArena *arena, KrIdeaList *out,
                              KrDiags *diags) {
  memset(out, 0, sizeof *out);
  KrRecipeRun *seed_run = NULL;
  if (in->seed_recipe && in->seed_recipe[0]) {
    seed_run = run_recipe(in->seed_recipe, in);
    if (!seed_run) {
      kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "heuristic: the seed recipe does not apply");
      return KR_ERR;
    }
  }
  const char **kernels = kr_arena_alloc(arena, (in->nkernels + 1) * sizeof *kernels);
  memcpy(kernels, in->kernels, in->nkernels * sizeof *kernels);
  shuffle(kernels, in->nkernels, in->seed);
  const char *const *order =
    kr_heuristic_compute_bound(in->intensity) ? compute_order : memory_order;
  if (in->bound && strcmp(in->bound, "compute-bound") == 0) order = compute_order;
  else if (in->bound && strcmp(in->bound, "latency-bound") == 0) order = latency_order;
  else if (in->bound) order = memory_order;
  for (size_t i = 0; i < sizeof memory_order / sizeof memory_order[0]; i++) {
    if (strcmp(order[i], "fast_math") == 0 && !in->allow_lowering) continue;
    const PassPlan *plan = plan_of(order[i]);
    if (plan && strcmp(plan->pass, "split_k") == 0 && !few_tiles(in)) continue;
    if (plan && kr_pass_find(plan->pass))
      propose_pass(in, seed_run, plan, kernels, arena, out);
  }
  if (seed_run) kr_recipe_run_free(seed_run);
  return KR_OK;
}
