/* tests/unit/test_heuristic.c: the built-in proposer of `krewrite optimize` (search/heuristic.h):
 * deterministic for a seed, ordered by the bottleneck, and offering only passes that apply. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipes/recipe.h"
#include "search/heuristic.h"

typedef struct Problem {
  KrArena *arena;
  KrDiags *diags;
  KrSpec *spec;
  char *text;
  size_t len;
  KrHeuristicInput in;
} Problem;

/* The problem of examples/EXAMPLE, or of the spec at KR_SOURCE_DIR/EXAMPLE when it ends in .lua. */
static void load(Problem *p, const char *example) {
  p->arena = kr_arena_new();
  p->diags = kr_diags_new();
  size_t n = strlen(example);
  const char *path = n > 4 && strcmp(example + n - 4, ".lua") == 0
                       ? kr_arena_printf(p->arena, KR_SOURCE_DIR "/%s", example)
                       : kr_arena_printf(p->arena, KR_SOURCE_DIR "/examples/%s/problem.lua", example);
  assert_int_equal(kr_spec_load(path, p->arena, &p->spec, p->diags), KR_OK);
  assert_int_equal(kr_file_read(p->spec->source, p->arena, &p->text, &p->len, p->diags), KR_OK);
  memset(&p->in, 0, sizeof p->in);
  p->in.source_path = p->spec->source;
  p->in.source_text = p->text;
  p->in.source_len = p->len;
  kr_heuristic_kernels(p->spec, p->text, p->len, NULL, p->arena, (const char ***)&p->in.kernels, &p->in.nkernels);
  p->in.intensity = kr_heuristic_intensity(p->spec, p->arena);
  p->in.output_tiles = kr_heuristic_output_tiles(p->spec, p->arena);
  p->in.reduction_length = kr_heuristic_reduction_length(p->spec, p->arena);
  p->in.seed = 1;
  p->in.round = 1;
}

static void unload(Problem *p) {
  kr_diags_free(p->diags);
  kr_arena_free(p->arena);
}

static KrIdeaList propose(Problem *p) {
  KrIdeaList ideas;
  assert_int_equal(kr_heuristic_propose(&p->in, p->arena, &ideas, p->diags), KR_OK);
  return ideas;
}

static size_t first_of(const KrIdeaList *ideas, const char *pass) {
  for (size_t i = 0; i < ideas->len; i++)
    if (strcmp(ideas->data[i].pass, pass) == 0) return i;
  return (size_t)-1;
}

/* How many passes the recipe applied to the problem's source; -1 when it failed. */
static long applied(Problem *p, const char *recipe) {
  KrRecipeOptions ro;
  kr_recipe_options_init(&ro, p->arena);
  KrRecipeRun *run;
  if (kr_recipe_apply("t.lua", recipe, strlen(recipe), p->spec->source, p->text, p->len, &ro, &run,
                      p->diags) != KR_OK)
    return -1;
  long n = (long)run->records.len;
  kr_recipe_run_free(run);
  return n;
}

static void heuristic_gives_the_same_ideas_for_the_same_seed(void **state) {
  (void)state;
  Problem p;
  load(&p, "relu_gelu");   /* two kernels: the seed orders them */
  p.in.seed = 7;
  KrIdeaList a = propose(&p), b = propose(&p);
  assert_true(a.len > 0);
  assert_int_equal(a.len, b.len);
  for (size_t i = 0; i < a.len; i++) {
    assert_string_equal(a.data[i].reason, b.data[i].reason);
    assert_int_equal(a.data[i].variants.len, b.data[i].variants.len);
    for (size_t j = 0; j < a.data[i].variants.len; j++)
      assert_string_equal(a.data[i].variants.data[j].recipe, b.data[i].variants.data[j].recipe);
  }
  unload(&p);
}

static void memory_bound_kernel_tries_ldg_and_vectorize_before_unroll(void **state) {
  (void)state;
  Problem p;
  load(&p, "vector_add");
  assert_true(p.in.intensity > 0 && !kr_heuristic_compute_bound(p.in.intensity));
  KrIdeaList ideas = propose(&p);
  size_t ldg = first_of(&ideas, "ldg"), vec = first_of(&ideas, "vectorize");
  size_t unroll = first_of(&ideas, "unroll");
  assert_true(unroll != (size_t)-1);   /* the grid-stride loop can be unrolled by 4 */
  assert_true(ldg < unroll);
  assert_true(vec < unroll);
  assert_non_null(strstr(ideas.data[ldg].reason, "memory-bound"));
  unload(&p);
}

static void compute_bound_matmul_tries_the_schedule_first(void **state) {
  (void)state;
  Problem p;
  load(&p, "matmul");
  assert_true(kr_heuristic_compute_bound(p.in.intensity));
  KrIdeaList ideas = propose(&p);
  assert_true(ideas.len > 0);
  assert_string_equal(ideas.data[0].pass, "tile");
  assert_true(ideas.data[0].grid);
  assert_non_null(strstr(ideas.data[0].reason, "compute-bound"));
  assert_string_equal(ideas.data[0].variants.data[0].label, "128x128,k=16,8x8,stages=2");
  /* The whole grid: every point accepted or refused with the schedule checks' reason. */
  assert_int_equal(ideas.data[0].variants.len + ideas.data[0].refused.len, 4 * 3 * 4 * 3);
  /* Three stages of 128 x 128 tiles need 50 KiB: the grid keeps to static shared memory's 48. */
  bool shared = false;
  for (size_t i = 0; i < ideas.data[0].refused.len; i++)
    if (strcmp(ideas.data[0].refused.data[i].label, "128x128,k=16,8x8,stages=3") == 0)
      shared = strstr(ideas.data[0].refused.data[i].why, "bytes of shared memory") != NULL;
  assert_true(shared);
  bool unroll = false;
  for (size_t i = 0; i < ideas.len; i++) {
    unroll = unroll || strcmp(ideas.data[i].pass, "unroll") == 0;
    /* The grid's schedules hold register_tile and double_buffer. */
    assert_true(strcmp(ideas.data[i].pass, "register_tile") != 0 && strcmp(ideas.data[i].pass, "double_buffer") != 0);
  }
  assert_true(unroll);   /* the text passes are still offered, after the schedule */
  unload(&p);
}

static void a_tiled_seed_gets_register_tile_and_double_buffer_alone(void **state) {
  (void)state;
  Problem p;
  load(&p, "matmul");
  p.in.seed_recipe = "kr.kernel(\"matmul\"):apply(\"tile\", { block = {64, 64}, k = 16 })\n";
  p.in.round = 2;
  KrIdeaList ideas = propose(&p);
  assert_true(first_of(&ideas, "tile") == (size_t)-1);
  size_t rt = first_of(&ideas, "register_tile"), db = first_of(&ideas, "double_buffer");
  assert_true(rt != (size_t)-1 && db != (size_t)-1);
  assert_false(ideas.data[rt].grid);
  assert_int_equal(applied(&p, ideas.data[db].variants.data[0].recipe), 2);
  unload(&p);
}

/* Every variant applies exactly one pass, and every (pass, kernel) left out does not apply with
 * the pass's defaults (split_k is also left out where the output's tiles fill the SMs). */
static long count_of(const char *s, const char *w) {
  long n = 0;
  for (const char *at = strstr(s, w); at; at = strstr(at + 1, w)) n++;
  return n;
}

/* Whether a variant of the grid idea applies `pass`. */
static bool grid_holds(const KrIdea *idea, const char *pass) {
  char line[64];
  snprintf(line, sizeof line, "):apply(\"%s\"", pass);
  for (size_t v = 0; v < idea->variants.len; v++)
    if (strstr(idea->variants.data[v].recipe, line)) return true;
  return false;
}

static void check_only_applicable(const char *example) {
  Problem p;
  load(&p, example);
  KrIdeaList ideas = propose(&p);
  for (size_t i = 0; i < ideas.len; i++)
    for (size_t j = 0; j < ideas.data[i].variants.len; j++) {
      const char *r = ideas.data[i].variants.data[j].recipe;
      /* A grid point is a whole schedule, and a schedule alone may start with fusions: a k:apply line
       * for each of their passes. */
      assert_int_equal(applied(&p, r), count_of(r, "):apply("));
    }
  for (size_t k = 0; k < p.in.nkernels; k++)
    for (size_t q = 0; q < kr_pass_count(); q++) {
      const char *pass = kr_pass_at(q)->name;
      bool offered = false;
      for (size_t i = 0; i < ideas.len; i++) {
        bool in_grid = ideas.data[i].grid && grid_holds(&ideas.data[i], pass);
        offered = offered || ((in_grid || strcmp(ideas.data[i].pass, pass) == 0) &&
                              strcmp(ideas.data[i].kernel, p.in.kernels[k]) == 0);
      }
      /* fast_math always lowers precision, tensor_core on fp32 operands too: without the opt-in a
       * recipe that runs them fails (the test's inputs do not allow lowering). */
      if (offered || strcmp(pass, "fast_math") == 0 || (strcmp(pass, "tensor_core") == 0 && !p.in.allow_lowering)) continue;
      if (strcmp(pass, "split_k") == 0 && (p.in.output_tiles >= 132 || p.in.reduction_length < 1024)) continue;
      const char *probe = kr_arena_printf(p.arena, "kr.kernel(\"%s\"):try(\"%s\")\n",
                                          p.in.kernels[k], pass);
      assert_int_equal(applied(&p, probe), 0);
    }
  unload(&p);
}

static void only_applicable_passes_are_proposed(void **state) {
  (void)state;
  check_only_applicable("vector_add");
  check_only_applicable("matmul");
  check_only_applicable("conv_relu_maxpool");
}

/* The parts of split_k in a variant's recipe (0: none). */
static int parts_of(const char *recipe) {
  const char *at = strstr(recipe, "apply(\"split_k\", { parts = ");
  return at ? atoi(at + strlen("apply(\"split_k\", { parts = ")) : 0;
}

/* 4096 x 4096 outputs are 1024 tiles of 128 x 128, 512 x 512 are 16: only the second is split, in
 * every schedule of its grid, into the fewest parts (a power of two) whose blocks fill the 132 SMs;
 * gemm_accum's 517 x 613 are 19 tiles, but of 131 products each. Alone, split_k is offered only where
 * no grid is (here: a tiled seed). */
static void split_k_is_proposed_only_for_outputs_of_few_tiles(void **state) {
  (void)state;
  Problem big, small, short_k;
  load(&big, "matmul");
  load(&small, "matmul_tallk");
  load(&short_k, "gemm_accum");
  assert_true(big.in.output_tiles >= 1024 && small.in.output_tiles <= 16 && short_k.in.output_tiles < 132);
  assert_true(small.in.reduction_length == 32768 && short_k.in.reduction_length < 1024);
  KrIdeaList b = propose(&big), s = propose(&small), sk_short = propose(&short_k);
  assert_true(first_of(&b, "split_k") == (size_t)-1 && !grid_holds(&b.data[first_of(&b, "tile")], "split_k"));
  assert_true(first_of(&sk_short, "split_k") == (size_t)-1);
  assert_false(grid_holds(&sk_short.data[first_of(&sk_short, "tile")], "split_k"));
  assert_true(first_of(&s, "split_k") == (size_t)-1);
  const KrIdea *grid = &s.data[first_of(&s, "tile")];
  assert_true(grid->grid && grid->variants.len > 0);
  for (size_t v = 0; v < grid->variants.len; v++) {
    const char *r = grid->variants.data[v].recipe;
    int bm = 0, bn = 0, parts = parts_of(r);
    assert_int_equal(sscanf(strstr(r, "block = {"), "block = {%d, %d}", &bm, &bn), 2);
    double tiles = 512.0 * 512.0 / (bm * bn);
    assert_true(parts >= 2 && tiles * parts >= 132 && tiles * parts / 2 < 132);
  }
  assert_int_equal(parts_of(grid->variants.data[0].recipe), 16);   /* 128 x 128: 16 tiles, 256 blocks */
  assert_int_equal(applied(&small, grid->variants.data[0].recipe), count_of(grid->variants.data[0].recipe, "):apply("));
  small.in.seed_recipe = "kr.kernel(\"matmul_tallk\"):apply(\"tile\", { block = {128, 128}, k = 16 })\n";
  small.in.round = 2;
  KrIdeaList tiled = propose(&small);
  size_t sk = first_of(&tiled, "split_k");
  assert_true(sk != (size_t)-1);
  assert_string_equal(tiled.data[sk].variants.data[0].label, "parts=4");
  assert_int_equal(applied(&small, tiled.data[sk].variants.data[0].recipe), 2);
  unload(&big);
  unload(&small);
  unload(&short_k);
}

static void fast_math_is_proposed_only_when_lowering_is_allowed(void **state) {
  (void)state;
  Problem p;
  load(&p, "softmax");
  KrIdeaList strict = propose(&p);
  assert_true(first_of(&strict, "fast_math") == (size_t)-1);
  p.in.allow_lowering = true;
  KrIdeaList lowered = propose(&p);
  size_t fm = first_of(&lowered, "fast_math");
  assert_true(fm != (size_t)-1);
  assert_non_null(strstr(lowered.data[fm].variants.data[0].recipe, "kr.allow_lowering()"));
  assert_int_equal(applied(&p, lowered.data[fm].variants.data[0].recipe), 1);
  unload(&p);
}

static bool has_label(const KrIdea *idea, const char *label) {
  for (size_t v = 0; v < idea->variants.len; v++)
    if (strcmp(idea->variants.data[v].label, label) == 0) return true;
  return false;
}

/* tensor_core on fp32 operands lowers precision (tf32, and 3xtf32 as declared): its grid is offered
 * only when lowering is allowed, with the opt-in in its recipes; on bf16 operands it is exact and
 * always offered. The grid's schedules are whole (tile, tensor_core, double_buffer). */
static void tensor_core_is_proposed_as_its_precision_allows(void **state) {
  (void)state;
  Problem p;
  load(&p, "matmul");
  KrIdeaList strict = propose(&p);
  assert_true(first_of(&strict, "tensor_core") == (size_t)-1);
  p.in.allow_lowering = true;
  KrIdeaList lowered = propose(&p);
  size_t tc = first_of(&lowered, "tensor_core");
  assert_true(tc != (size_t)-1 && lowered.data[tc].grid);
  assert_true(first_of(&lowered, "tile") < tc);   /* the SIMT schedule first */
  const KrIdea *g = &lowered.data[tc];
  /* Whole schedules (tile, tensor_core, double_buffer) in 3xtf32 and tf32, by wgmma (k tiles of 32
   * fp32 elements: 128 bytes) and mma.sync; every one opts in. */
  assert_true(has_label(g, "3xtf32,wgmma,128x128,k=32,stages=4") && has_label(g, "tf32,wgmma,256x128,k=32,stages=4"));
  assert_string_equal(g->variants.data[g->variants.len - 1].label, "tf32,mma,64x128,k=32,stages=2");
  /* 3xtf32 under wgmma sums each k tile apart (more registers): at most 128 columns a product. */
  assert_false(has_label(g, "3xtf32,wgmma,256x128,k=32,stages=4"));
  bool refused = false;
  for (size_t r = 0; r < g->refused.len; r++)
    refused = refused || (strcmp(g->refused.data[r].label, "3xtf32,wgmma,256x128,k=32,stages=4") == 0 &&
                          strstr(g->refused.data[r].why, "at most 128 columns wide"));
  assert_true(refused);
  for (size_t v = 0; v < g->variants.len; v++) {
    const char *r = g->variants.data[v].recipe;
    assert_non_null(strstr(r, "kr.allow_lowering()"));
    assert_int_equal(count_of(r, "):apply("), 3);
  }
  assert_int_equal(applied(&p, g->variants.data[0].recipe), 3);
  assert_int_equal(applied(&p, g->variants.data[g->variants.len - 1].recipe), 3);
  unload(&p);
  Problem b;
  load(&b, "matmul_bf16");
  KrIdeaList exact = propose(&b);
  tc = first_of(&exact, "tensor_core");
  assert_true(tc != (size_t)-1 && exact.data[tc].grid);
  g = &exact.data[tc];
  /* 16-bit operands: exact, no opt-in; wgmma's k tile is 64 of them. */
  assert_string_equal(g->variants.data[0].label, "wgmma,256x128,k=64,stages=4");
  for (size_t v = 0; v < g->variants.len; v++)
    assert_null(strstr(g->variants.data[v].recipe, "kr.allow_lowering()"));
  assert_int_equal(applied(&b, g->variants.data[0].recipe), 3);
  unload(&b);
}

/* The labels of the tensor_core idea's variants on `example` seeded with a 128 x 128 tile (k 16), each
 * checked to apply (the seed and tensor_core), as "a|b|c". */
static const char *tensor_core_on_a_tile(const char *example, const char *kernel, bool lowering) {
  Problem p;
  load(&p, example);
  p.in.allow_lowering = lowering;
  p.in.seed_recipe = kr_arena_printf(p.arena, "kr.kernel(\"%s\"):apply(\"tile\", { block = {128, 128}, k = 16 })\n", kernel);
  p.in.round = 2;
  KrIdeaList ideas = propose(&p);
  size_t tc = first_of(&ideas, "tensor_core");
  assert_true(tc != (size_t)-1);
  static char labels[256];
  labels[0] = 0;
  for (size_t v = 0; v < ideas.data[tc].variants.len; v++) {
    assert_int_equal(applied(&p, ideas.data[tc].variants.data[v].recipe), 2);
    snprintf(labels + strlen(labels), sizeof labels - strlen(labels), "%s%s", v ? "|" : "",
             ideas.data[tc].variants.data[v].label);
  }
  unload(&p);
  return labels;
}

/* On a tiled seed the tensor_core idea holds Hopper's wgmma too, with the k tile it needs (32 for tf32
 * and 3xtf32, 64 for 16-bit operands); the forms whose precision or k the operands rule out are not
 * offered. */
static void tensor_core_offers_wgmma_on_a_tiled_seed(void **state) {
  (void)state;
  assert_string_equal(tensor_core_on_a_tile("matmul", "matmul", true), "auto|tf32|auto,wgmma|tf32,wgmma");
  assert_string_equal(tensor_core_on_a_tile("matmul_bf16", "matmul_bf16", false), "auto|16-bit,wgmma");
}

/* An elementwise kernel launched after a kernel that stores what it reads (a ReLU, an affine map)
 * is fused into that kernel's schedules first: the grid's and a schedule pass's alone. A window
 * consumer (the max-pool) is not; a fused kernel gets no idea of its own in the next round. */
static void elementwise_consumers_are_fused_into_the_schedules(void **state) {
  (void)state;
  Problem c;
  load(&c, "conv_relu_maxpool");
  KrIdeaList ideas = propose(&c);
  const KrIdea *ig = &ideas.data[first_of(&ideas, "implicit_gemm")];
  assert_true(ig->variants.len > 0);
  for (size_t v = 0; v < ig->variants.len; v++) {
    const char *r = ig->variants.data[v].recipe;
    assert_non_null(strstr(ig->variants.data[v].label, "fuse relu_inplace,"));
    assert_true(strstr(r, "apply(\"fuse\", { consumer = \"relu_inplace\" })") < strstr(r, "apply(\"implicit_gemm\""));
    assert_null(strstr(r, "maxpool2d"));
  }
  assert_int_equal(applied(&c, ig->variants.data[0].recipe), 2);
  assert_non_null(strstr(ig->reason, "relu_inplace computed in its epilogue"));
  unload(&c);
  Problem f;
  load(&f, "tests/fixtures/fuse/problem.lua");
  ideas = propose(&f);
  const KrIdea *g = &ideas.data[first_of(&ideas, "tile")];
  assert_true(g->grid && g->variants.len > 0);
  for (size_t v = 0; v < g->variants.len; v++)
    assert_non_null(strstr(g->variants.data[v].recipe, "kr.kernel(\"matmul\"):apply(\"fuse\", { consumer = \"affine\" })\n"
                                                        "kr.kernel(\"matmul\"):apply(\"tile\""));
  assert_int_equal(applied(&f, g->variants.data[0].recipe), count_of(g->variants.data[0].recipe, "):apply("));
  bool affine = false;
  for (size_t i = 0; i < ideas.len; i++) affine = affine || strcmp(ideas.data[i].kernel, "affine") == 0;
  assert_true(affine);   /* before the fusion, affine's own ideas too */
  f.in.seed_recipe = g->variants.data[0].recipe;
  f.in.round = 2;
  KrIdeaList next = propose(&f);
  assert_true(next.len > 0);
  for (size_t i = 0; i < next.len; i++) assert_string_not_equal(next.data[i].kernel, "affine");
  unload(&f);
}

/* A convolution's nest is no plain contraction: implicit_gemm is offered for it (not tile), each
 * variant applies, and after it the contraction schedule's passes apply to the GEMM view. */
static void implicit_gemm_is_proposed_for_a_convolution(void **state) {
  (void)state;
  check_only_applicable("conv2d");
  Problem p;
  load(&p, "conv2d");
  KrIdeaList ideas = propose(&p);
  size_t ig = first_of(&ideas, "implicit_gemm");
  assert_true(ig != (size_t)-1);
  assert_true(first_of(&ideas, "tile") == (size_t)-1);
  for (size_t v = 0; v < ideas.data[ig].variants.len; v++)
    assert_int_equal(applied(&p, ideas.data[ig].variants.data[v].recipe), 1);
  p.in.seed_recipe = ideas.data[ig].variants.data[0].recipe;
  p.in.round = 2;
  KrIdeaList next = propose(&p);
  assert_true(first_of(&next, "implicit_gemm") == (size_t)-1 || first_of(&next, "tile") != (size_t)-1);
  assert_true(first_of(&next, "tile") != (size_t)-1 || first_of(&next, "register_tile") != (size_t)-1);
  unload(&p);
  Problem m;
  load(&m, "matmul");
  KrIdeaList mm = propose(&m);
  assert_true(first_of(&mm, "implicit_gemm") == (size_t)-1);   /* a plain contraction is tile's */
  unload(&m);
}

static void a_seed_recipe_is_extended_not_repeated(void **state) {
  (void)state;
  Problem p;
  load(&p, "vector_add");
  p.in.seed_recipe = "kr.kernel(\"vector_add\"):apply(\"restrict\")\n";
  p.in.round = 2;
  KrIdeaList ideas = propose(&p);
  assert_true(ideas.len > 0);
  assert_true(first_of(&ideas, "restrict") == (size_t)-1);
  for (size_t i = 0; i < ideas.len; i++) {
    const char *r = ideas.data[i].variants.data[0].recipe;
    assert_memory_equal(r, p.in.seed_recipe, strlen(p.in.seed_recipe));
    assert_int_equal(applied(&p, r), 2);
  }
  unload(&p);
}

/* A spec with a host entry point names no launches: the kernels are those the entry launches,
 * through the host functions it calls, and not those of a launcher it never calls. */
static void an_entry_spec_gives_the_kernels_its_entry_launches(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSpec *spec;
  assert_int_equal(kr_spec_load(KR_SOURCE_DIR "/tests/fixtures/entry/two_launchers.lua", a, &spec, d), KR_OK);
  char *text;
  size_t len;
  assert_int_equal(kr_file_read(spec->source, a, &text, &len, d), KR_OK);
  const char **names;
  size_t n;
  kr_heuristic_kernels(spec, text, len, NULL, a, &names, &n);
  assert_int_equal(n, 1);
  assert_string_equal(names[0], "scale");
  kr_diags_free(d);
  kr_arena_free(a);
}

/* A launch of a template kernel runs the file's explicit specialization for its arguments, when there is
 * one: the ideas name it ("mm<float>"), which the nest reads, not the generic template. */
static void a_launch_names_the_explicit_specialization(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSpec *spec;
  assert_int_equal(kr_spec_load(KR_SOURCE_DIR "/tests/fixtures/template/mm_float.lua", a, &spec, d), KR_OK);
  char *text;
  size_t len;
  assert_int_equal(kr_file_read(spec->source, a, &text, &len, d), KR_OK);
  const char **names;
  size_t n;
  kr_heuristic_kernels(spec, text, len, NULL, a, &names, &n);
  assert_int_equal(n, 1);
  assert_string_equal(names[0], "mm<float>");
  kr_diags_free(d);
  kr_arena_free(a);
}

static void a_seed_recipe_that_fails_is_an_error(void **state) {
  (void)state;
  Problem p;
  load(&p, "vector_add");
  p.in.seed_recipe = "kr.kernel(\"no_such_kernel\"):apply(\"restrict\")\n";
  KrIdeaList ideas;
  assert_int_equal(kr_heuristic_propose(&p.in, p.arena, &ideas, p.diags), KR_ERR);
  unload(&p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(heuristic_gives_the_same_ideas_for_the_same_seed),
    cmocka_unit_test(a_launch_names_the_explicit_specialization),
    cmocka_unit_test(memory_bound_kernel_tries_ldg_and_vectorize_before_unroll),
    cmocka_unit_test(compute_bound_matmul_tries_the_schedule_first),
    cmocka_unit_test(a_tiled_seed_gets_register_tile_and_double_buffer_alone),
    cmocka_unit_test(only_applicable_passes_are_proposed),
    cmocka_unit_test(split_k_is_proposed_only_for_outputs_of_few_tiles),
    cmocka_unit_test(fast_math_is_proposed_only_when_lowering_is_allowed),
    cmocka_unit_test(tensor_core_is_proposed_as_its_precision_allows),
    cmocka_unit_test(tensor_core_offers_wgmma_on_a_tiled_seed),
    cmocka_unit_test(implicit_gemm_is_proposed_for_a_convolution),
    cmocka_unit_test(elementwise_consumers_are_fused_into_the_schedules),
    cmocka_unit_test(a_seed_recipe_is_extended_not_repeated),
    cmocka_unit_test(a_seed_recipe_that_fails_is_an_error),
    cmocka_unit_test(an_entry_spec_gives_the_kernels_its_entry_launches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
