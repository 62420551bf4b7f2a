/* tests/unit/test_heuristic_rows.c: the built-in proposer on row reductions (search/heuristic.h,
 * the reductions): a kernel that lifts into a row nest gets one schedule grid of block_reduce and
 * warp_reduce (and split_rows where that pass exists), its fused variants (online_softmax,
 * welford) first, every variant a whole recipe that applies; a contraction gets none of it; a seed
 * that schedules the rows gets the fusions alone; the pruning's model ranks a fused variant above
 * its unfused twin (search/prune.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "recipes/recipe.h"
#include "search/heuristic.h"
#include "search/prune.h"

typedef struct Problem {
  KrArena *arena;
  KrDiags *diags;
  KrSpec *spec;
  char *text;
  size_t len;
  KrHeuristicInput in;
} Problem;

static void load(Problem *p, const char *example) {
  p->arena = kr_arena_new();
  p->diags = kr_diags_new();
  const char *path = kr_arena_printf(p->arena, KR_SOURCE_DIR "/examples/%s/problem.lua", example);
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
  p->in.spec = p->spec;
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

/* The passes the recipe applied, as "block_reduce,online_softmax"; NULL when it failed. */
static const char *applied(Problem *p, const char *recipe) {
  KrRecipeOptions ro;
  kr_recipe_options_init(&ro, p->arena);
  KrRecipeRun *run;
  if (kr_recipe_apply("t.lua", recipe, strlen(recipe), p->spec->source, p->text, p->len, &ro, &run,
                      p->diags) != KR_OK)
    return NULL;
  const char *s = "";
  for (size_t i = 0; i < run->records.len; i++)
    s = kr_arena_printf(p->arena, "%s%s%s", s, i ? "," : "", run->records.data[i].pass);
  kr_recipe_run_free(run);
  return s;
}

/* The row grid leads, each variant a whole recipe that applies the passes its label names, the
 * variants with `fusion` (all of them) before those without, `layouts` among the first `first`. */
static const KrIdea *check_grid(Problem *p, const char *fusion, const char *const *layouts, size_t first) {
  KrIdeaList ideas = propose(p);
  assert_true(ideas.len > 0);
  const KrIdea *g = &ideas.data[0];
  assert_string_equal(g->pass, "block_reduce");
  assert_true(g->grid);
  assert_true(g->variants.len >= 7);
  assert_non_null(strstr(g->reason, fusion));
  assert_non_null(strstr(g->reason, "memory-bound"));
  bool unfused = false;
  for (size_t i = 0; i < g->variants.len; i++) {
    const KrIdeaVariant *v = &g->variants.data[i];
    bool fused = strstr(v->label, fusion) != NULL;
    if (!fused) unfused = true;
    assert_true(fused || unfused);   /* no fused variant after an unfused one */
    const char *passes = applied(p, v->recipe);
    assert_non_null(passes);
    /* The label starts with the layout pass: block_reduce, warp_reduce or split_rows (which takes
     * block_reduce's row layout by default, so its recipe has no block_reduce line). */
    const char *layout = kr_arena_printf(p->arena, "%.*s", (int)strcspn(v->label, ",+"), v->label);
    const char *want = fused ? kr_arena_printf(p->arena, "%s,%s", layout, fusion) : layout;
    if (strstr(v->label, "+row_cache")) want = kr_arena_printf(p->arena, "%s,row_cache", want);
    /* A split streaming the rows past a shared vector: block_reduce { stream = true } before it. */
    if (strstr(v->label, ",stream")) want = kr_arena_printf(p->arena, "block_reduce,%s", want);
    assert_string_equal(passes, want);
  }
  assert_true(unfused);   /* the unfused schedules are in the grid too */
  for (size_t l = 0; layouts[l]; l++) {
    bool seen = false;
    for (size_t i = 0; i < first && i < g->variants.len; i++)
      seen = seen || strstr(g->variants.data[i].label, layouts[l]) == g->variants.data[i].label;
    assert_true(seen);
  }
  /* split_rows only where the pass exists. */
  for (size_t i = 0; !kr_pass_find("split_rows") && i < g->variants.len; i++)
    assert_null(strstr(g->variants.data[i].recipe, "split_rows"));
  /* Nothing else offers a reduction pass. */
  for (size_t i = 1; i < ideas.len; i++) {
    const KrPass *q = kr_pass_find(ideas.data[i].pass);
    assert_true(q && !q->rows);
  }
  return g;
}

static void softmax_gets_block_and_warp_reduce_with_online_softmax_first(void **state) {
  (void)state;
  Problem p;
  load(&p, "softmax");
  const char *const layouts[] = {"block_reduce,row,threads=256", "warp_reduce,threads=256", NULL};
  const KrIdea *g = check_grid(&p, "online_softmax", layouts, 3);
  assert_string_equal(g->variants.data[0].label, "block_reduce,row,threads=256+online_softmax+row_cache");
  assert_string_equal(g->variants.data[1].label, "block_reduce,row,threads=256+online_softmax");
  /* row_cache where a row of 65536 floats fits: 4096 / T steps a thread in registers, the rest in
   * at most 192 KiB of shared memory (T = 256, 512, 1024; not 128: 224 KiB would be needed). */
  size_t cached = 0, clustered = 0;
  for (size_t i = 0; i < g->variants.len; i++)
    if (strstr(g->variants.data[i].label, "+row_cache")) {
      cached++;
      assert_null(strstr(g->variants.data[i].label, "threads=128"));
      clustered += strstr(g->variants.data[i].label, ",cluster") != NULL;
    }
  /* and a row over a cluster of 4 or 8 blocks, each keeping its part (fused and not): 4 more */
  assert_int_equal(cached, 10);
  assert_int_equal(clustered, 4);
  assert_non_null(strstr(g->variants.data[0].recipe, "row_cache\", { steps = 16, shared = 192 }"));
  /* The reason says what the passes do for this kernel, with its sizes. */
  assert_non_null(strstr(g->reason, "4096 rows of 65536 elements"));
  assert_non_null(strstr(g->reason, "max loop"));
  assert_null(strstr(g->reason, "welford"));
  /* block_reduce at 128..1024 threads and warp_reduce at 128..512, fused and not: 14, and the 6
   * with row_cache; split_rows at 2..32 parts, fused and not, after them (4096 rows fill the GPU):
   * 10 more; and the 4 cluster splits above. */
  assert_int_equal(g->variants.len, kr_pass_find("split_rows") ? 34 : 20);
  if (kr_pass_find("split_rows")) assert_non_null(strstr(g->variants.data[g->variants.len - 1].label, "split_rows"));
  unload(&p);
}

/* row_cache sized by the row's bytes: rmsnorm_bf16's rows of 4096 bf16 elements (8 KiB) fill 4
 * 16-byte steps of 128 threads and 2 of 256, all in registers; 16 steps (as 4-byte elements were
 * once assumed) only held registers and ran 1.8x slower on the H200. */
static void a_bf16_row_is_cached_in_the_steps_it_fills(void **state) {
  (void)state;
  Problem p;
  load(&p, "rmsnorm_bf16");
  KrIdeaList ideas = propose(&p);
  size_t g = first_of(&ideas, "block_reduce");
  assert_true(g != (size_t)-1);
  size_t seen = 0;
  for (size_t i = 0; i < ideas.data[g].variants.len; i++) {
    const KrIdeaVariant *v = &ideas.data[g].variants.data[i];
    if (!strcmp(v->label, "block_reduce,row,threads=128+row_cache"))
      seen++, assert_non_null(strstr(v->recipe, "row_cache\", { steps = 4, shared = 0 }"));
    if (!strcmp(v->label, "block_reduce,row,threads=256+row_cache"))
      seen++, assert_non_null(strstr(v->recipe, "row_cache\", { steps = 2, shared = 0 }"));
  }
  assert_int_equal(seen, 2);
  unload(&p);
}

static void layernorm_gets_welford_first(void **state) {
  (void)state;
  Problem p;
  load(&p, "layernorm");
  /* 16 rows for 132 SMs: each row split over several blocks first. */
  const char *const split[] = {"split_rows", NULL}, *const plain[] = {"block_reduce", "warp_reduce", NULL};
  const KrIdea *g = check_grid(&p, "welford", kr_pass_find("split_rows") ? split : plain, 2);
  assert_non_null(strstr(g->variants.data[0].label, "+welford"));
  assert_null(strstr(g->reason, "online_softmax"));
  /* Its rows read weight[j] and bias[j] again for every row: the splits stream the rows past them
   * first, the one giving the 132 SMs about four blocks each (16 rows x 32 parts) leading. */
  if (kr_pass_find("split_rows")) {
    assert_string_equal(g->variants.data[0].label, "split_rows,parts=32,stream+welford");
    assert_non_null(strstr(g->variants.data[0].recipe, "apply(\"block_reduce\", { threads = 256, stream = true })"));
  }
  unload(&p);
}

static void matvec_gets_warp_reduce(void **state) {
  (void)state;
  Problem p;
  load(&p, "matvec");
  KrIdeaList ideas = propose(&p);
  const KrIdea *g = &ideas.data[0];
  assert_string_equal(g->pass, "block_reduce");
  assert_true(g->grid);
  assert_non_null(strstr(g->reason, "one thread walks each row"));
  bool warp = false;
  for (size_t i = 0; i < 2 && i < g->variants.len; i++) warp = warp || strstr(g->variants.data[i].label, "warp_reduce");
  assert_true(warp);
  for (size_t i = 0; i < g->variants.len; i++) {
    assert_null(strstr(g->variants.data[i].recipe, "online_softmax"));   /* nothing to fuse */
    assert_null(strstr(g->variants.data[i].recipe, "welford"));
    assert_non_null(applied(&p, g->variants.data[i].recipe));
  }
  unload(&p);
}

/* A short row (spmv_csr: CSR rows of about 32, from the spec's flops per thread) tries a warp per
 * row first; reads contiguous across rows (colsum) the column layout first, a warp per row after. */
static void the_sizes_and_the_reads_order_the_grid(void **state) {
  (void)state;
  Problem c;
  load(&c, "spmv_csr");
  KrIdeaList ci = propose(&c);
  assert_string_equal(ci.data[0].pass, "block_reduce");
  assert_non_null(strstr(ci.data[0].reason, "about 32 elements a row"));
  assert_string_equal(ci.data[0].variants.data[0].label, "warp_reduce,threads=256");
  unload(&c);
  Problem s;
  load(&s, "colsum");
  KrIdeaList si = propose(&s);
  assert_string_equal(si.data[0].pass, "block_reduce");
  assert_non_null(strstr(si.data[0].reason, "32 rows a block"));
  for (size_t i = 0; i < 4; i++) assert_non_null(strstr(si.data[0].variants.data[i].label, "block_reduce,column,"));
  assert_non_null(applied(&s, si.data[0].variants.data[0].recipe));
  unload(&s);
}

static void a_contraction_gets_no_reduction_pass(void **state) {
  (void)state;
  Problem p;
  load(&p, "matmul");
  KrIdeaList ideas = propose(&p);
  assert_true(ideas.len > 0);
  assert_string_equal(ideas.data[0].pass, "tile");
  for (size_t i = 0; i < ideas.len; i++) {
    const KrPass *q = kr_pass_find(ideas.data[i].pass);
    assert_true(q && !q->rows);
    for (size_t j = 0; j < ideas.data[i].variants.len; j++) {
      const char *r = ideas.data[i].variants.data[j].recipe;
      assert_null(strstr(r, "block_reduce"));
      assert_null(strstr(r, "warp_reduce"));
      assert_null(strstr(r, "online_softmax"));
      assert_null(strstr(r, "welford"));
      assert_null(strstr(r, "split_rows"));
    }
  }
  unload(&p);
}

static void a_seed_with_a_row_schedule_gets_the_fusion_alone(void **state) {
  (void)state;
  Problem p;
  load(&p, "softmax");
  p.in.seed_recipe = "kr.kernel(\"softmax\"):apply(\"warp_reduce\", { threads = 128 })\n";
  p.in.round = 2;
  KrIdeaList ideas = propose(&p);
  assert_true(first_of(&ideas, "block_reduce") == (size_t)-1);
  assert_true(first_of(&ideas, "welford") == (size_t)-1);
  size_t os = first_of(&ideas, "online_softmax");
  assert_int_equal(os, 0);
  assert_false(ideas.data[os].grid);
  assert_string_equal(applied(&p, ideas.data[os].variants.data[0].recipe), "warp_reduce,online_softmax");
  /* Fused already: nothing of the reductions is left to offer. */
  p.in.seed_recipe = "kr.kernel(\"softmax\"):apply(\"block_reduce\", { threads = 256 })\n"
                     "kr.kernel(\"softmax\"):apply(\"online_softmax\")\n";
  KrIdeaList done = propose(&p);
  for (size_t i = 0; i < done.len; i++) {
    const KrPass *q = kr_pass_find(done.data[i].pass);
    assert_true(q && !q->rows);
  }
  unload(&p);
}

static void the_model_ranks_a_fused_variant_above_its_twin(void **state) {
  (void)state;
  KrPruneShape plain = {.rows = true, .threads = 256}, fused = {.rows = true, .threads = 256, .fused = 1},
               fused512 = {.rows = true, .threads = 512, .fused = 1};
  assert_true(kr_prune_score(&fused, NULL) > kr_prune_score(&plain, NULL));
  assert_true(kr_prune_score(&fused512, NULL) > kr_prune_score(&plain, NULL));
}

/* With the row kept on chip (row_cache), online_softmax saves no read: the cached variant alone
 * ranks above it with online_softmax, and both above online_softmax without the cache. */
static void a_kept_row_ranks_above_its_online_twin(void **state) {
  (void)state;
  const char *plain = "{\"layout\": \"block\", \"row_cache\": {\"steps\": 4, \"shared\": 48}}";
  const char *online = "{\"layout\": \"block\", \"online\": true, \"row_cache\": {\"steps\": 4, \"shared\": 48}}";
  const char *uncached = "{\"layout\": \"block\", \"online\": true}";
  KrPruneShape a, b, c;
  assert_true(kr_prune_shape_json(plain, "dim3(256, 1, 1)", &a));
  assert_true(kr_prune_shape_json(online, "dim3(256, 1, 1)", &b));
  assert_true(kr_prune_shape_json(uncached, "dim3(256, 1, 1)", &c));
  assert_true(kr_prune_score(&a, NULL) > kr_prune_score(&b, NULL));
  assert_true(kr_prune_score(&b, NULL) > kr_prune_score(&c, NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(softmax_gets_block_and_warp_reduce_with_online_softmax_first),
    cmocka_unit_test(a_bf16_row_is_cached_in_the_steps_it_fills),
    cmocka_unit_test(layernorm_gets_welford_first),
    cmocka_unit_test(matvec_gets_warp_reduce),
    cmocka_unit_test(the_sizes_and_the_reads_order_the_grid),
    cmocka_unit_test(a_contraction_gets_no_reduction_pass),
    cmocka_unit_test(a_seed_with_a_row_schedule_gets_the_fusion_alone),
    cmocka_unit_test(the_model_ranks_a_fused_variant_above_its_twin),
    cmocka_unit_test(a_kept_row_ranks_above_its_online_twin),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
