/* tests/unit/test_build.c: the code builder (passes/build.h) on small kernels: the place's
 * indentation, indentation step and newline style (CRLF included), splicing with substitutions,
 * fresh names against the file's names, declarations before a statement, and affine forms
 * written with a variable replaced. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/kr_test.h"

#include <stdlib.h>
#include <string.h>

#include "passes/build.h"

typedef struct Fx {
  KrTestDoc d;
  KrPassCtx cx;
} Fx;

static Fx *load(const char *text) {
  Fx *fx = calloc(1, sizeof *fx);
  kr_test_parse(&fx->d, text);
  assert_true(fx->d.model->kernels.len >= 1);
  fx->cx.src = &fx->d.src;
  fx->cx.tree = fx->d.tree;
  fx->cx.model = fx->d.model;
  fx->cx.kernel = &fx->d.model->kernels.data[0];
  fx->cx.arena = fx->d.arena;
  fx->cx.diag = fx->d.diags;
  return fx;
}

static void unload(Fx *fx) {
  kr_test_free(&fx->d);
  free(fx);
}

static uint32_t byte_of(Fx *fx, const char *marker) {
  const char *p = strstr(fx->d.src.text, marker);
  assert_non_null(p);
  return (uint32_t)(p - fx->d.src.text);
}

/* The statement (a direct child of some block) that starts at `marker`. */
static TSNode stmt_at(Fx *fx, const char *marker) {
  uint32_t at = byte_of(fx, marker);
  TSNode n = ts_node_named_descendant_for_byte_range(kr_tree_root(fx->d.tree), at, at);
  while (!ts_node_is_null(ts_node_parent(n)) && ts_node_start_byte(ts_node_parent(n)) == at)
    n = ts_node_parent(n);
  assert_int_equal(ts_node_start_byte(n), at);
  return n;
}

static int by_start(const void *a, const void *b) {
  const KrEdit *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The source with the pass's edits applied in start order (they do not overlap here). */
static char *edited(Fx *fx) {
  qsort(fx->cx.edits.data, fx->cx.edits.len, sizeof *fx->cx.edits.data, by_start);
  KrBuf b = {0};
  uint32_t at = 0;
  for (size_t i = 0; i < fx->cx.edits.len; i++) {
    const KrEdit *e = &fx->cx.edits.data[i];
    assert_true(e->start >= at);
    kr_buf_append(&b, fx->d.src.text + at, e->start - at);
    kr_buf_puts(&b, e->text);
    at = e->end;
  }
  kr_buf_append(&b, fx->d.src.text + at, fx->d.src.len - at);
  return kr_buf_steal(&b);
}

static void code_takes_the_indentation_and_newlines_of_its_place(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\r\n"
                "    int i = threadIdx.x;\r\n"
                "    x[i] = 0;\r\n"
                "}\r\n");
  KrCode c;
  uint32_t at = byte_of(fx, "x[i] = 0");
  kr_code_at(&c, &fx->cx, at);
  assert_string_equal(c.indent, "    ");
  assert_string_equal(c.unit, "    ");
  assert_string_equal(c.nl, "\r\n");
  kr_code_open(&c, "if (i < n)");
  kr_code_line(&c, "x[i] = %d;", 1);
  kr_code_close(&c);
  kr_code_indent(&c);
  assert_string_equal(kr_code_text(&c), "if (i < n) {\r\n        x[i] = 1;\r\n    }\r\n    ");
  unload(fx);
}

static void first_line_is_indented_only_at_a_line_start(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "\tx[0] = 0;\n"
                "}\n");
  uint32_t at = byte_of(fx, "x[0]");
  KrCode c;
  kr_code_at(&c, &fx->cx, at - 1); /* the line's start */
  assert_string_equal(c.unit, "\t");
  kr_code_line(&c, "int a;");
  assert_string_equal(kr_code_text(&c), "\tint a;\n");
  kr_code_at(&c, &fx->cx, at);     /* after the indentation */
  kr_code_line(&c, "int a;");
  kr_code_trim(&c);
  assert_string_equal(kr_code_text(&c), "int a;");
  unload(fx);
}

static void splice_reindents_and_substitutes(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\r\n"
                "  if (n > 0) {\r\n"
                "    x[0] = 1;\r\n"
                "  }\r\n"
                "}\r\n");
  TSNode stmt = stmt_at(fx, "if (n > 0)");
  uint32_t x0 = byte_of(fx, "x[0]");
  KrSubst subst[] = {{x0, x0 + 4, "v.x"}};
  KrCode c;
  kr_code_at(&c, &fx->cx, ts_node_start_byte(stmt));
  kr_code_open(&c, "for (;;)");
  kr_code_splice(&c, stmt, subst, 1);
  kr_code_close(&c);
  assert_string_equal(kr_code_text(&c), "for (;;) {\r\n"
                                        "    if (n > 0) {\r\n"
                                        "      v.x = 1;\r\n"
                                        "    }\r\n"
                                        "  }\r\n");
  unload(fx);
}

static void fresh_names_avoid_the_file_and_each_other(void **state) {
  (void)state;
  Fx *fx = load("#define kr_v_1 3\n"
                "int kr_g;\n"
                "__global__ void k(float *x) { int kr_v = kr_v_1; x[0] = kr_v; /* kr_c */ }\n"
                "__global__ void other(float *x) {\n"
                "#define kr_m 1\n"
                "  int kr_o = kr_m; x[0] = kr_o + kr_g;\n"
                "}\n");
  KrNameSet taken = {0};
  assert_string_equal(kr_code_fresh(&fx->cx, &taken, "kr_v"), "kr_v_2");
  assert_string_equal(kr_code_fresh(&fx->cx, &taken, "kr_v"), "kr_v_3");
  assert_string_equal(kr_code_fresh(&fx->cx, &taken, "kr_e"), "kr_e");
  assert_int_equal(taken.names.len, 3);
  /* A global is in reach; a comment and another kernel's local are not. */
  assert_string_equal(kr_code_fresh(&fx->cx, &taken, "kr_g"), "kr_g_1");
  assert_string_equal(kr_code_fresh(&fx->cx, &taken, "kr_c"), "kr_c");
  assert_string_equal(kr_code_fresh(&fx->cx, &taken, "kr_o"), "kr_o");
  /* A macro is in reach wherever it is defined. */
  assert_string_equal(kr_code_fresh(&fx->cx, &taken, "kr_m"), "kr_m_1");
  unload(fx);
}

static void before_goes_above_pragmas_and_braces_unbraced_bodies(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  #pragma unroll\n"
                "  for (int i = 0; i < 4; i++) x[i] = 0;\n"
                "  if (n) for (int j = 0; j < 4; j++) x[j] = 1;\n"
                "}\n");
  const char *lines[] = {"const int a = 1;", "const int b = 2;"};
  kr_code_before(&fx->cx, stmt_at(fx, "for (int i"), lines, 2);
  kr_code_before(&fx->cx, stmt_at(fx, "for (int j"), lines, 1);
  char *out = edited(fx);
  assert_string_equal(out, "__global__ void k(float *x, int n) {\n"
                           "  const int a = 1;\n"
                           "  const int b = 2;\n"
                           "  #pragma unroll\n"
                           "  for (int i = 0; i < 4; i++) x[i] = 0;\n"
                           "  if (n) { const int a = 1; for (int j = 0; j < 4; j++) x[j] = 1; }\n"
                           "}\n");
  free(out);
  unload(fx);
}

static void affine_forms_are_written_with_a_variable_replaced(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  for (int kk = 0; kk < n; kk++) x[4 * kk + threadIdx.x] = 0;\n"
                "}\n");
  KrAffineCtx *ac = kr_pass_affine(&fx->cx);
  uint32_t at = byte_of(fx, "4 * kk + threadIdx.x");
  TSNode idx = ts_node_named_descendant_for_byte_range(kr_tree_root(fx->d.tree), at,
                                                       at + (uint32_t)strlen("4 * kk + threadIdx.x"));
  const KrAffine *a = kr_affine_of(ac, idx);
  assert_true(a->ok);
  KrCode c;
  kr_code_at(&c, &fx->cx, at);
  kr_code_affine(&c, a, "kk", "kt + kk");
  assert_string_equal(kr_code_text(&c), "4 * (kt + kk) + threadIdx.x");
  unload(fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(code_takes_the_indentation_and_newlines_of_its_place),
    cmocka_unit_test(first_line_is_indented_only_at_a_line_start),
    cmocka_unit_test(splice_reindents_and_substitutes),
    cmocka_unit_test(fresh_names_avoid_the_file_and_each_other),
    cmocka_unit_test(before_goes_above_pragmas_and_braces_unbraced_bodies),
    cmocka_unit_test(affine_forms_are_written_with_a_variable_replaced),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
