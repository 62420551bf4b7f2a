/* tests/unit/test_offset_cases.c: verify's offset cases on the audit path (runtime/verify.c,
 * "Offset cases"). A candidate whose pass record says that it accesses x and y as 16-byte vectors
 * (KrAligned, passes/pass.h) gets x + 1 and y + 1 run without --offset-cases. Given as a pass's
 * output, a kernel that reads them as float4 without checking the alignment
 * (tests/fixtures/align_offset/float4_unchecked.cu) fails there, naming the buffer, the offset, the
 * parameter and the pass; the same text with a record that says nothing passes, so the offset case
 * is what catches it. The recipe path with vectorize's own output is tests/CMakeLists.txt's
 * verify.offset.* (label emulator, as this test). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipes/recipe.h"
#include "runtime/verify.h"

#define FIXTURE KR_SOURCE_DIR "/tests/fixtures/align_offset/"

static char *read_all(const char *path, KrArena *a) {
  char *text;
  size_t len;
  KrDiags *d = kr_diags_new();
  assert_int_equal(kr_file_read(path, a, &text, &len, d), KR_OK);
  kr_diags_free(d);
  return text;
}

/* A recipe run of one record: a pass on axpy whose output is float4_unchecked.cu, which the record
 * says accesses the `n` parameters of `aligned` as 16-byte vectors. */
static KrRecipeRun *run_of(const char *const *aligned, size_t n) {
  KrRecipeRun *run = calloc(1, sizeof *run);
  assert_non_null(run);
  run->arena = kr_arena_new();
  run->recipe_path = "hand-made.lua";
  const char *after = read_all(FIXTURE "float4_unchecked.cu", run->arena);
  KrPassRecord rec = {.pass = "vectorize", .kernel = "axpy", .params_json = "{}", .given_json = "{}",
                      .precision = KR_PRECISION_EXACT, .after = after, .after_len = (uint32_t)strlen(after)};
  for (size_t i = 0; i < n; i++) {
    KrAligned al = {aligned[i], 16};
    kr_vec_push(run->arena, &rec.aligned, al);
  }
  kr_vec_push(run->arena, &run->records, rec);
  return run;
}

static KrStatus verify_run(const KrRecipeRun *run, KrArena *a, KrVerifyReport **rep) {
  KrDiags *d = kr_diags_new();
  KrSpec *spec;
  assert_int_equal(kr_spec_load(FIXTURE "problem.lua", a, &spec, d), KR_OK);
  KrVerifyOptions opt = {.device = KR_DEVICE_CPU, .run = run, .passes = 1, .shuffle = true, .timeout_s = 20};
  KrStatus st = kr_verify(spec, &opt, a, rep, d);
  kr_diags_free(d);
  return st;
}

static const KrCaseResult *offset_case(const KrVerifyReport *r, const char *offset) {
  for (size_t i = 0; i < r->cases.len; i++)
    if (r->cases.data[i].offset && strcmp(r->cases.data[i].offset, offset) == 0) return &r->cases.data[i];
  return NULL;
}

static void recorded_vectors_unchecked_fail_one_element_off(void **state) {
  (void)state;
  static const char *const xy[] = {"x", "y"};
  KrRecipeRun *run = run_of(xy, 2);
  KrArena *a = kr_arena_new();
  KrVerifyReport *rep;
  assert_int_equal(verify_run(run, a, &rep), KR_ERR);
  assert_null(rep->error);
  assert_int_equal(rep->failed, 2);   /* x + 1 and y + 1; every test case passed */
  const KrCaseResult *c = offset_case(rep, "x + 1");
  assert_non_null(c);
  assert_false(c->pass);
  assert_string_equal(c->kind, "offset case");
  assert_non_null(strstr(c->failure, "with x one element past an aligned address (x + 1; parameter 'x' of 'axpy', "
                                     "which vectorize accesses as 16-byte vectors): the candidate failed to run: "
                                     "kernel 'axpy' read at a misaligned address"));
  assert_non_null(offset_case(rep, "y + 1"));
  KrBuf b = {0};
  kr_verify_text(rep, &b);
  assert_non_null(strstr(b.data, "x + 1 (parameter 'x' of 'axpy', which vectorize accesses as 16-byte vectors): FAILED"));
  kr_buf_free(&b);
  kr_arena_free(a);
  kr_recipe_run_free(run);
  free(run);
}

static void no_record_no_offset_case(void **state) {
  (void)state;
  KrRecipeRun *run = run_of(NULL, 0);
  KrArena *a = kr_arena_new();
  KrVerifyReport *rep;
  assert_int_equal(verify_run(run, a, &rep), KR_OK);
  assert_int_equal(rep->failed, 0);
  assert_null(offset_case(rep, "x + 1"));
  kr_arena_free(a);
  kr_recipe_run_free(run);
  free(run);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(recorded_vectors_unchecked_fail_one_element_off),
    cmocka_unit_test(no_record_no_offset_case),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
