/* tests/unit/test_affine.c: affine index forms (frontend/affine.h) on small kernels: what is
 * affine and how it reads, what is not and why, strides, loop invariance, name resolution. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/kr_test.h"

#include <string.h>

#include "frontend/affine.h"

typedef struct Fx {
  KrTestDoc d;
  const KrKernel *k;
  KrAffineCtx *ac;
} Fx;

static Fx *load(const char *text) {
  Fx *fx = calloc(1, sizeof *fx);
  kr_test_parse(&fx->d, text);
  assert_true(fx->d.model->kernels.len >= 1);
  fx->k = &fx->d.model->kernels.data[0];
  fx->ac = kr_affine_ctx_new(fx->d.tree, fx->k, fx->d.arena);
  return fx;
}

static void unload(Fx *fx) {
  kr_test_free(&fx->d);
  free(fx);
}

/* The index expression of the n-th (0-based) subscript written `<marker>` in the text, e.g.
 * index_of(fx, "y[", 0) for the first `y[...]`. */
static TSNode index_of(Fx *fx, const char *marker, int nth) {
  const char *p = fx->d.src.text;
  for (int i = 0; i <= nth; i++) {
    p = strstr(i ? p + 1 : p, marker);
    assert_non_null(p);
  }
  uint32_t at = (uint32_t)(p - fx->d.src.text);
  TSNode n = ts_node_descendant_for_byte_range(kr_tree_root(fx->d.tree), at, at + 1);
  while (!ts_node_is_null(n) && ts_node_symbol(n) != fx->d.tree->sym.subscript_expression)
    n = ts_node_parent(n);
  assert_false(ts_node_is_null(n));
  TSNode idx = ts_node_child_by_field_name(n, "indices", 7);
  return ts_node_named_child(idx, 0);
}

static const KrAffine *aff(Fx *fx, const char *marker, int nth) {
  return kr_affine_of(fx->ac, index_of(fx, marker, nth));
}

static const char *text_of(Fx *fx, const KrAffine *a) { return kr_affine_text(a, fx->d.arena); }

static int loop_named(Fx *fx, const char *var) {
  for (size_t i = 0; i < fx->k->loops.len; i++)
    if (fx->k->loops.data[i].var && strcmp(fx->k->loops.data[i].var, var) == 0) return (int)i;
  fail_msg("no loop over %s", var);
  return -1;
}

/* ---- Affine forms ---------------------------------------------------------------------------- */

static void global_thread_index_is_substituted_from_its_local(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *y, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) y[i] = 0;\n}\n");
  const KrAffine *a = aff(fx, "y[", 0);
  assert_true(a->ok);
  assert_string_equal(text_of(fx, a), "blockIdx.x * blockDim.x + threadIdx.x");
  long long c;
  assert_true(kr_affine_coef(a, "threadIdx.x", &c));
  assert_int_equal(c, 1);
  assert_false(kr_affine_coef(a, "blockIdx.x", &c)); /* symbolic: blockDim.x */
  assert_string_equal(kr_affine_coef_text(a, "blockIdx.x", fx->d.arena), "blockDim.x");
  assert_true(kr_affine_unit_stride_x(fx->ac, a));
  unload(fx);
}

static void row_major_index_has_symbolic_coefficients(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *c, int n) {\n"
                "  int row = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "  int col = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  c[row * n + col + 3] = 1.0f;\n}\n");
  const KrAffine *a = aff(fx, "c[", 0);
  assert_true(a->ok);
  assert_string_equal(kr_affine_coef_text(a, "threadIdx.y", fx->d.arena), "n");
  assert_string_equal(kr_affine_coef_text(a, "blockIdx.y", fx->d.arena), "blockDim.y * n");
  assert_string_equal(kr_affine_coef_text(a, "threadIdx.z", fx->d.arena), "0");
  assert_true(kr_affine_unit_stride_x(fx->ac, a));
  long long s;
  assert_false(kr_affine_stride(fx->ac, a, "threadIdx.y", &s)); /* n is not a number */
  unload(fx);
}

static void constants_shifts_and_negation_fold_into_coefficients(void **state) {
  (void)state;
  Fx *fx = load("#define W 8\n"
                "__global__ void k(float *x) {\n"
                "  const int t = threadIdx.x;\n"
                "  x[(t << 2) - 2 * (t - 1) + W * 3 + 0x10] = 0;\n"
                "  x[-t + 2 * t] = 1;\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_true(a->ok);
  assert_string_equal(text_of(fx, a), "2 * threadIdx.x + 18 + 3 * W");
  long long s;
  assert_true(kr_affine_stride(fx->ac, a, "threadIdx.x", &s));
  assert_int_equal(s, 2);
  assert_false(kr_affine_unit_stride_x(fx->ac, a));
  assert_string_equal(text_of(fx, aff(fx, "x[", 1)), "threadIdx.x");
  unload(fx);
}

static void integer_casts_are_looked_through(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, long n) {\n"
                "  size_t i = (size_t)blockIdx.x * blockDim.x + static_cast<int>(threadIdx.x);\n"
                "  x[i + int(n)] = 0;\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_true(a->ok);
  assert_string_equal(text_of(fx, a), "blockIdx.x * blockDim.x + threadIdx.x + n");
  unload(fx);
}

static void float_cast_is_not_affine(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n  x[(int)(float)threadIdx.x] = 0;\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_false(a->ok);
  assert_non_null(strstr(a->why, "not an integer type"));
  unload(fx);
}

/* ---- Not affine ------------------------------------------------------------------------------ */

static void product_of_two_loop_variables_is_not_affine(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  for (int i = 0; i < n; i++)\n"
                "    for (int j = 0; j < n; j++) x[i * j] = 0;\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_false(a->ok);
  assert_string_equal(a->why, "'i * j' multiplies two index variables (i, j)");
  uint32_t at = (uint32_t)(strstr(fx->d.src.text, "i * j") - fx->d.src.text);
  assert_int_equal(a->at, at);
  unload(fx);
}

static void indirect_index_is_not_affine(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, const int *y) {\n"
                "  x[y[threadIdx.x]] = 0;\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_false(a->ok);
  assert_string_equal(a->why, "'y[threadIdx.x]' is a memory access");
  unload(fx);
}

static void remainder_and_division_are_not_affine(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  int i = threadIdx.x;\n"
                "  x[i % n] = 0;\n"
                "  x[i / 2] = 0;\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_false(a->ok);
  assert_string_equal(a->why, "'i % n' uses a remainder ('%'), which is not affine");
  const KrAffine *b = aff(fx, "x[", 1);
  assert_false(b->ok);
  assert_non_null(strstr(b->why, "integer division"));
  unload(fx);
}

static void local_assigned_twice_is_not_substituted(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int c) {\n"
                "  int i = threadIdx.x;\n"
                "  if (c) i += 32;\n"
                "  x[i] = 0;\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_false(a->ok);
  assert_string_equal(a->why, "'i' is assigned more than once (again at 3:10)");
  unload(fx);
}

static void local_with_non_affine_definition_reports_the_definition(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, const int *idx) {\n"
                "  int j = idx[threadIdx.x];\n"
                "  x[j + 1] = 0;\n}\n");
  const KrAffine *a = aff(fx, "x[j", 0);
  assert_false(a->ok);
  assert_non_null(
    strstr(a->why, "'j' is defined at 2:7 as 'idx[threadIdx.x]', which is not affine"));
  unload(fx);
}

static void assigned_parameter_is_not_a_symbol(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  n -= 1;\n"
                "  x[n] = 0;\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_false(a->ok);
  assert_string_equal(a->why, "parameter 'n' is assigned at 2:3");
  unload(fx);
}

static void loop_variable_changed_in_its_body_is_not_affine(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  for (int i = 0; i < n; i++) {\n"
                "    x[i] = 0;\n"
                "    i++;\n"
                "  }\n}\n");
  const KrAffine *a = aff(fx, "x[", 0);
  assert_false(a->ok);
  assert_non_null(strstr(a->why, "loop variable 'i' is also assigned in the loop body at 4:5"));
  unload(fx);
}

/* ---- Loops: strides and invariance ----------------------------------------------------------- */

static void grid_stride_loop_variable_has_unit_stride(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *y, const float *x, int n) {\n"
                "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
                "       i += blockDim.x * gridDim.x)\n"
                "    y[i] = x[i];\n}\n");
  const KrAffine *a = aff(fx, "y[", 0);
  assert_true(a->ok);
  assert_string_equal(text_of(fx, a), "i");
  assert_true(kr_affine_unit_stride_x(fx->ac, a));
  const KrAffine *step = kr_affine_loop_step(fx->ac, loop_named(fx, "i"));
  assert_non_null(step);
  assert_string_equal(text_of(fx, step), "blockDim.x * gridDim.x");
  unload(fx);
}

static void loop_stepping_by_thread_index_has_no_stride(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *y, int n) {\n"
                "  for (int i = threadIdx.x; i < n; i += threadIdx.x + 1) y[i] = 0;\n}\n");
  long long s;
  assert_false(kr_affine_stride(fx->ac, aff(fx, "y[", 0), "threadIdx.x", &s));
  unload(fx);
}

static void strided_thread_index_through_loop_is_not_unit(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *y, int n) {\n"
                "  for (int i = 2 * threadIdx.x; i < n; i += 256) y[i] = 0;\n}\n");
  long long s;
  assert_true(kr_affine_stride(fx->ac, aff(fx, "y[", 0), "threadIdx.x", &s));
  assert_int_equal(s, 2);
  unload(fx);
}

static void index_invariance_follows_loop_nesting(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *a, int n) {\n"
                "  int row = blockIdx.y;\n"
                "  for (int i = 0; i < n; i++) {\n"
                "    int base = row * n + i;\n"
                "    for (int j = 0; j < n; j++) a[base] += a[j];\n"
                "  }\n}\n");
  int li = loop_named(fx, "i"), lj = loop_named(fx, "j");
  const KrAffine *base = aff(fx, "a[", 0);
  assert_true(base->ok);
  assert_string_equal(text_of(fx, base), "blockIdx.y * n + i");
  assert_true(kr_affine_invariant_in(fx->ac, base, lj));
  assert_false(kr_affine_invariant_in(fx->ac, base, li));
  const KrAffine *j = aff(fx, "a[", 1);
  assert_false(kr_affine_invariant_in(fx->ac, j, lj));
  assert_true(kr_affine_invariant_in(fx->ac, j, li) == false); /* j's loop is inside i's */
  unload(fx);
}

static void sibling_loops_with_the_same_variable_name_are_distinct(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *a, int n) {\n"
                "  for (int k = 0; k < n; k++) a[k] = 0;\n"
                "  for (int k = 1; k < n; k++) a[k] = 1;\n}\n");
  const KrAffine *x = aff(fx, "a[", 0), *y = aff(fx, "a[", 1);
  assert_true(x->ok && y->ok);
  assert_int_not_equal(x->terms.data[0].loop, y->terms.data[0].loop);
  assert_false(kr_affine_equal(x, y));
  unload(fx);
}

static void constant_difference_between_neighbouring_indices(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *a, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  a[i + 1] = a[i] + a[i * 2];\n}\n");
  long long d;
  assert_true(kr_affine_const_diff(aff(fx, "a[", 0), aff(fx, "a[", 1), &d));
  assert_int_equal(d, 1);
  assert_false(kr_affine_const_diff(aff(fx, "a[", 0), aff(fx, "a[", 2), &d));
  assert_true(kr_affine_equal(aff(fx, "a[", 1), aff(fx, "a[", 1)));
  unload(fx);
}

static void uniform_forms_have_no_index_variables(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  x[n * 4 + blockDim.x] = 0;\n"
                "  x[i] = 1;\n"
                "  x[n - 2 * threadIdx.x - 1] = 2;\n}\n");
  assert_true(kr_affine_is_uniform(aff(fx, "x[", 0)));
  assert_false(kr_affine_is_uniform(aff(fx, "x[", 1)));
  const KrAffine *neg = aff(fx, "x[", 2);
  assert_string_equal(text_of(fx, neg), "-2 * threadIdx.x - 1 + n");
  long long c;
  assert_true(kr_affine_coef(neg, "threadIdx.x", &c));
  assert_int_equal(c, -2);
  assert_string_equal(kr_affine_coef_text(neg, "threadIdx.x", fx->d.arena), "-2");
  unload(fx);
}

static void loop_facts_give_initial_value_and_step(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  for (int j = n - 1; j >= 0; j -= 2) x[j] = 0;\n"
                "  for (int t = 0; t < n; t = t * 2) x[t] = 1;\n}\n");
  int lj = loop_named(fx, "j"), lt = loop_named(fx, "t");
  assert_string_equal(text_of(fx, kr_affine_loop_init(fx->ac, lj)), "-1 + n");
  assert_string_equal(text_of(fx, kr_affine_loop_step(fx->ac, lj)), "-2");
  assert_null(kr_affine_loop_step(fx->ac, lt)); /* t = t * 2 has no constant step */
  long long s;
  assert_false(kr_affine_stride(fx->ac, aff(fx, "x[", 1), "threadIdx.x", &s));
  unload(fx);
}

static void lambda_parameter_is_not_the_kernel_parameter(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  auto f = [=](int n) { return x[n]; };\n"
                "  x[n] = f(1);\n}\n");
  TSNode in_lambda = index_of(fx, "x[", 0);
  assert_int_equal(kr_resolve(fx->d.tree, fx->k, in_lambda).kind, KR_BIND_LAMBDA);
  assert_false(aff(fx, "x[", 0)->ok);
  assert_int_equal(kr_resolve(fx->d.tree, fx->k, index_of(fx, "x[", 1)).kind, KR_BIND_PARAM);
  assert_string_equal(text_of(fx, aff(fx, "x[", 1)), "n");
  unload(fx);
}

/* ---- Name resolution ------------------------------------------------------------------------- */

static void inner_declaration_shadows_a_parameter(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  { int n = 4; x[n] = 0; }\n"
                "  x[n] = 1;\n}\n");
  assert_string_equal(text_of(fx, aff(fx, "x[", 0)), "4");
  assert_string_equal(text_of(fx, aff(fx, "x[", 1)), "n");
  TSNode id = index_of(fx, "x[", 1);
  KrBinding b = kr_resolve(fx->d.tree, fx->k, id);
  assert_int_equal(b.kind, KR_BIND_PARAM);
  assert_int_equal(b.param, 1);
  TSNode id0 = index_of(fx, "x[", 0);
  assert_int_equal(kr_resolve(fx->d.tree, fx->k, id0).kind, KR_BIND_LOCAL);
  unload(fx);
}

static void declaration_after_the_use_does_not_bind_it(void **state) {
  (void)state;
  Fx *fx = load("#define m 7\n"
                "__global__ void k(float *x) {\n"
                "  x[m] = 0;\n"
                "  int m2 = 1; (void)m2;\n}\n");
  TSNode id = index_of(fx, "x[", 0);
  assert_int_equal(kr_resolve(fx->d.tree, fx->k, id).kind, KR_BIND_NONE);
  assert_string_equal(text_of(fx, aff(fx, "x[", 0)), "m");
  unload(fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(global_thread_index_is_substituted_from_its_local),
    cmocka_unit_test(row_major_index_has_symbolic_coefficients),
    cmocka_unit_test(constants_shifts_and_negation_fold_into_coefficients),
    cmocka_unit_test(integer_casts_are_looked_through),
    cmocka_unit_test(float_cast_is_not_affine),
    cmocka_unit_test(product_of_two_loop_variables_is_not_affine),
    cmocka_unit_test(indirect_index_is_not_affine),
    cmocka_unit_test(remainder_and_division_are_not_affine),
    cmocka_unit_test(local_assigned_twice_is_not_substituted),
    cmocka_unit_test(local_with_non_affine_definition_reports_the_definition),
    cmocka_unit_test(assigned_parameter_is_not_a_symbol),
    cmocka_unit_test(loop_variable_changed_in_its_body_is_not_affine),
    cmocka_unit_test(grid_stride_loop_variable_has_unit_stride),
    cmocka_unit_test(loop_stepping_by_thread_index_has_no_stride),
    cmocka_unit_test(strided_thread_index_through_loop_is_not_unit),
    cmocka_unit_test(index_invariance_follows_loop_nesting),
    cmocka_unit_test(sibling_loops_with_the_same_variable_name_are_distinct),
    cmocka_unit_test(constant_difference_between_neighbouring_indices),
    cmocka_unit_test(uniform_forms_have_no_index_variables),
    cmocka_unit_test(loop_facts_give_initial_value_and_step),
    cmocka_unit_test(lambda_parameter_is_not_the_kernel_parameter),
    cmocka_unit_test(inner_declaration_shadows_a_parameter),
    cmocka_unit_test(declaration_after_the_use_does_not_bind_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
