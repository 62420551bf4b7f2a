/* tests/unit/test_search_facts.c: the search facts on the registry's passes (KrPass.search, which
 * the built-in proposer reads instead of a list of its own) are well formed, and the probe the
 * proposer runs them with holds: the seed's document copied (kr_doc_copy) still carries the
 * schedules its schedule passes keep, and a point's Lua table reads into raw arguments
 * (kr_recipe_args). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "passes/pass.h"
#include "recipes/recipe.h"

/* How many conversions a format has ("%%" is none), and whether all of them are %s. */
static int conversions(const char *fmt, bool *only_s) {
  int n = 0;
  *only_s = true;
  for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 1, '%')) {
    if (p[1] == '%') {
      p++;
      continue;
    }
    n++;
    *only_s = *only_s && p[1] == 's';
  }
  return n;
}

static void every_proposed_pass_has_a_reason_naming_the_kernel_once(void **state) {
  (void)state;
  size_t proposed = 0;
  for (size_t i = 0; i < kr_pass_count(); i++) {
    const KrPass *p = kr_pass_at(i);
    if (!p->search.reason) continue;
    proposed++;
    bool only_s;
    if (p->search.reason[0] == '\0') fail_msg("%s: an empty reason", p->name);
    if (conversions(p->search.reason, &only_s) != 1 || !only_s)
      fail_msg("%s: its reason must hold one %%s (the kernel) and no other conversion: %s", p->name, p->search.reason);
  }
  assert_true(proposed > 0);   /* the facts are where the proposer reads them */
}

static void every_point_reads_and_validates_against_the_pass(void **state) {
  (void)state;
  size_t points = 0;
  for (size_t i = 0; i < kr_pass_count(); i++) {
    const KrPass *p = kr_pass_at(i);
    bool ended = false;
    if (p->search.reason && !p->search.points[0].label) fail_msg("%s: proposed with no point to try", p->name);
    for (size_t g = 0; g < KR_SEARCH_POINTS; g++) {
      const KrSearchPoint *pt = &p->search.points[g];
      if (!pt->label) {
        ended = true;
        if (pt->params) fail_msg("%s: point %zu has parameters but no label", p->name, g);
        continue;
      }
      if (ended) fail_msg("%s: point %zu follows an empty one", p->name, g);
      if (!p->search.reason) fail_msg("%s: points but no reason, so it is never proposed", p->name);
      if (!pt->label[0] || !pt->params) fail_msg("%s: point %zu needs a label and parameters", p->name, g);
      KrArena *a = kr_arena_new();
      KrDiags *d = kr_diags_new();
      KrRawArgs raw;
      KrValue *v;
      if (kr_recipe_args(p->name, pt->params, a, &raw, d) != KR_OK || kr_pass_validate(p, &raw, a, &v, d) != KR_OK)
        fail_msg("%s: point '%s' (%s): %s", p->name, pt->label, pt->params,
                 kr_diags_first_error(d) ? kr_diags_first_error(d) : "?");
      /* The label "defaults" says the pass's defaults: no argument given. */
      if (strcmp(pt->label, "defaults") == 0 && raw.len != 0) fail_msg("%s: 'defaults' gives arguments", p->name);
      kr_diags_free(d);
      kr_arena_free(a);
      points++;
    }
  }
  assert_true(points > 0);
}

/* Each bottleneck's order is total over the proposed passes: every one has a rank there, and no
 * two share one; a pass never proposed has no rank, role or flag. */
static void every_order_ranks_each_proposed_pass_once(void **state) {
  (void)state;
  for (int b = 0; b < KR_SEARCH_BOUNDS; b++)
    for (size_t i = 0; i < kr_pass_count(); i++) {
      const KrPass *p = kr_pass_at(i);
      const KrSearchFacts *f = &p->search;
      if (!f->reason) {
        if (f->rank[b] != 0 || f->role != KR_SEARCH_ALONE || f->few_tiles)
          fail_msg("%s: search facts but no reason, so it is never proposed", p->name);
        continue;
      }
      if (f->rank[b] <= 0) fail_msg("%s: no rank for bottleneck %d", p->name, b);
      for (size_t j = 0; j < i; j++)
        if (kr_pass_at(j)->search.reason && kr_pass_at(j)->search.rank[b] == f->rank[b])
          fail_msg("%s and %s share rank %d for bottleneck %d", kr_pass_at(j)->name, p->name, f->rank[b], b);
    }
}

/* A schedule family's grid is made of schedule passes (KrSearchRole). */
static void family_roles_are_on_schedule_passes(void **state) {
  (void)state;
  for (size_t i = 0; i < kr_pass_count(); i++) {
    const KrPass *p = kr_pass_at(i);
    if (p->search.role != KR_SEARCH_ALONE && !p->schedule) fail_msg("%s: a family's role on a text pass", p->name);
  }
}

static void a_point_that_is_no_table_is_refused(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrRawArgs raw;
  assert_int_equal(kr_recipe_args("vectorize", "{ width = ", a, &raw, d), KR_ERR);
  assert_int_equal(kr_recipe_args("vectorize", "4", a, &raw, d), KR_ERR);
  assert_int_equal(kr_recipe_args("tile", "{ block = {64, 64}, k = 16 }", a, &raw, d), KR_OK);
  assert_int_equal(raw.len, 2);   /* sorted by name, as k:apply hands them over */
  assert_string_equal(raw.data[0].key, "block");
  assert_true(raw.data[0].is_list);
  assert_int_equal(raw.data[0].items.len, 2);
  assert_string_equal(raw.data[1].key, "k");
  assert_string_equal(raw.data[1].items.data[0].text, "16");
  kr_diags_free(d);
  kr_arena_free(a);
}

/* register_tile needs the schedule tile left in the document: a copy of the document has it, a
 * document made afresh from the same text does not (its kernel uses shared memory already). */
static void a_copied_document_keeps_the_schedule(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *path = KR_SOURCE_DIR "/examples/matmul/kernel.cu";
  char *text;
  size_t len;
  assert_int_equal(kr_file_read(path, a, &text, &len, d), KR_OK);
  const char *recipe = "kr.kernel(\"matmul\"):apply(\"tile\", { block = {64, 64}, k = 16 })\n";
  KrRecipeOptions ro;
  kr_recipe_options_init(&ro, a);
  ro.keep_doc = true;
  KrRecipeRun *run;
  assert_int_equal(kr_recipe_apply("t.lua", recipe, strlen(recipe), path, text, len, &ro, &run, d), KR_OK);
  assert_non_null(run->doc);
  KrRawArgs raw;
  assert_int_equal(kr_recipe_args("register_tile", "{ thread = {4, 4} }", a, &raw, d), KR_OK);
  const KrPass *rt = kr_pass_find("register_tile");
  KrPassRecord rec;

  KrDoc *copy = kr_doc_copy(run->doc, d);
  assert_non_null(copy);
  assert_int_equal(kr_doc_run_pass(copy, rt, "matmul", &raw, false, a, &rec, d), KR_OK);
  assert_non_null(strstr(rec.schedule_json, "\"thread\": [4, 4]"));
  /* The copy is its own: the run's document still has the tile alone, and takes the pass too. */
  assert_int_equal(kr_doc_source(run->doc)->len, run->output_len);
  assert_int_equal(kr_doc_run_pass(run->doc, rt, "matmul", &raw, false, a, &rec, d), KR_OK);
  assert_int_equal(kr_doc_source(copy)->len, kr_doc_source(run->doc)->len);
  assert_memory_equal(kr_doc_source(copy)->text, kr_doc_source(run->doc)->text, kr_doc_source(copy)->len);

  KrDiags *fresh_d = kr_diags_new();
  KrDoc *fresh = kr_doc_new(path, run->output_text, run->output_len, fresh_d);
  assert_non_null(fresh);
  assert_int_equal(kr_doc_run_pass(fresh, rt, "matmul", &raw, false, a, &rec, fresh_d), KR_SKIP);
  kr_doc_free(fresh);
  kr_diags_free(fresh_d);
  kr_doc_free(copy);
  kr_recipe_run_free(run);
  kr_diags_free(d);
  kr_arena_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_proposed_pass_has_a_reason_naming_the_kernel_once),
    cmocka_unit_test(every_point_reads_and_validates_against_the_pass),
    cmocka_unit_test(every_order_ranks_each_proposed_pass_once),
    cmocka_unit_test(family_roles_are_on_schedule_passes),
    cmocka_unit_test(a_point_that_is_no_table_is_refused),
    cmocka_unit_test(a_copied_document_keeps_the_schedule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
