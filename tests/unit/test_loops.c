/* tests/unit/test_loops.c: loop analyses (frontend/loops.h) on small kernels: canonical forms
 * and trip counts (constant, symbolic, unknown and why), body facts, varying sets and
 * invariance, constants, scalar types, and where text can go before a loop. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/kr_test.h"

#include <stdlib.h>
#include <string.h>

#include "frontend/loops.h"

typedef struct Fx {
  KrTestDoc d;
  const KrKernel *k;
  KrLoops *lx;
} Fx;

static Fx *load(const char *text) {
  Fx *fx = calloc(1, sizeof *fx);
  kr_test_parse(&fx->d, text);
  assert_true(fx->d.model->kernels.len >= 1);
  fx->k = &fx->d.model->kernels.data[0];
  fx->lx = kr_loops_new(fx->d.tree, fx->k, fx->d.arena);
  return fx;
}

static void unload(Fx *fx) {
  kr_test_free(&fx->d);
  free(fx);
}

static const KrLoopInfo *info(Fx *fx, size_t i) {
  assert_true(i < fx->k->loops.len);
  const KrLoopInfo *li = kr_loops_info(fx->lx, i);
  assert_non_null(li);
  return li;
}

/* The smallest expression node starting at the first occurrence of `marker` and spanning it. */
static TSNode expr_at(Fx *fx, const char *marker) {
  const char *p = strstr(fx->d.src.text, marker);
  assert_non_null(p);
  uint32_t at = (uint32_t)(p - fx->d.src.text);
  TSNode n = ts_node_named_descendant_for_byte_range(kr_tree_root(fx->d.tree), at,
                                                     at + (uint32_t)strlen(marker));
  while (ts_node_end_byte(n) - ts_node_start_byte(n) < strlen(marker)) n = ts_node_parent(n);
  assert_int_equal(ts_node_start_byte(n), at);
  assert_int_equal(ts_node_end_byte(n) - at, strlen(marker));
  return n;
}

/* The index of the subscript written `marker` ("x[BIG]"). */
static TSNode index_at(Fx *fx, const char *marker) {
  TSNode sub = expr_at(fx, marker);
  assert_int_equal(ts_node_symbol(sub), fx->d.tree->sym.subscript_expression);
  return ts_node_named_child(ts_node_child_by_field_name(sub, "indices", 7), 0);
}

static bool contains(const char *s, const char *part) { return s && strstr(s, part) != NULL; }

/* ---- Trip counts ---------------------------------------------------------------------------- */

static void trip_count_of_constant_loop_is_known(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "  for (int i = 0; i < 16; i += 4) x[i] = 0;\n"
                "  for (int i = 0; i < 17; i += 4) x[i] = 0;\n"
                "  for (int i = 3; i <= 3; i++) x[i] = 0;\n"
                "  for (int i = 5; i < 5; ++i) x[i] = 0;\n"
                "}\n");
  const KrLoopInfo *a = info(fx, 0);
  assert_true(a->canonical);
  assert_string_equal(a->var, "i");
  assert_true(a->var_declared);
  assert_int_equal(a->cmp, KR_CMP_LT);
  assert_int_equal(a->dir, 1);
  assert_int_equal(a->trip_kind, KR_TRIP_CONST);
  assert_int_equal(a->trip, 4);
  assert_string_equal(a->trip_text, "4");
  assert_int_equal(info(fx, 1)->trip, 5);
  assert_int_equal(info(fx, 2)->trip, 1);
  assert_int_equal(info(fx, 3)->trip_kind, KR_TRIP_CONST);
  assert_int_equal(info(fx, 3)->trip, 0);
  unload(fx);
}

static void trip_count_of_downward_loops_is_known(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "  for (int i = 10; i >= 0; i -= 3) x[i] = 0;\n"
                "  for (int i = 8; i > 0; i = i - 2) x[i] = 0;\n"
                "  for (int i = 4; 0 < i; --i) x[i] = 0;\n"
                "  for (int i = 0; i != 12; i = 3 + i) x[i] = 0;\n"
                "}\n");
  assert_int_equal(info(fx, 0)->trip, 4); /* 10, 7, 4, 1 */
  assert_int_equal(info(fx, 0)->dir, -1);
  assert_int_equal(info(fx, 1)->trip, 4); /* 8, 6, 4, 2 */
  assert_int_equal(info(fx, 2)->cmp, KR_CMP_GT); /* 0 < i is i > 0 */
  assert_int_equal(info(fx, 2)->trip, 4);
  assert_int_equal(info(fx, 3)->trip_kind, KR_TRIP_CONST);
  assert_int_equal(info(fx, 3)->trip, 4);
  unload(fx);
}

static void trip_count_sees_defines_and_constexpr_constants(void **state) {
  (void)state;
  Fx *fx = load("#define N 10\n"
                "#define HALF (N / 2)\n"
                "constexpr int M = 3;\n"
                "__global__ void k(float *x) {\n"
                "  const int L = M * 4;\n"
                "  for (int i = 1; i <= N; ++i) x[i] = 0;\n"
                "  for (int i = M * 2; i > 0; i--) x[i] = 0;\n"
                "  for (int i = 0; i < HALF; i++) x[i] = 0;\n"
                "  for (int i = 0; i < L; i++) x[i] = 0;\n"
                "}\n");
  assert_int_equal(info(fx, 0)->trip, 10);
  assert_int_equal(info(fx, 1)->trip, 6);
  assert_int_equal(info(fx, 2)->trip, 5);
  assert_int_equal(info(fx, 3)->trip_kind, KR_TRIP_CONST);
  assert_int_equal(info(fx, 3)->trip, 12);
  unload(fx);
}

static void trip_count_over_template_parameter_is_symbolic(void **state) {
  (void)state;
  Fx *fx = load("template <int BS> __global__ void k(float *x) {\n"
                "  for (int i = 0; i < BS; ++i) x[i] = 0;\n"
                "}\n");
  const KrLoopInfo *li = info(fx, 0);
  assert_true(li->canonical);
  assert_int_equal(li->trip_kind, KR_TRIP_SYMBOLIC);
  assert_string_equal(li->trip_text, "BS");
  unload(fx);
}

static void symbolic_trip_count_text_accounts_for_start_and_stride(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n, int t, int s) {\n"
                "  for (int i = t; i < n; i += 4) x[i] = 0;\n"
                "  for (int i = n - 1; i >= t; --i) x[i] = 0;\n"
                "  for (int i = t; i < n; i += s) x[i] = 0;\n"
                "}\n");
  assert_string_equal(info(fx, 0)->trip_text, "(n - t + 3) / 4");
  assert_string_equal(info(fx, 1)->trip_text, "(n - 1) - t + 1");
  assert_string_equal(info(fx, 2)->trip_text, "(n - t + s - 1) / s");
  assert_false(info(fx, 2)->stride_const);
  unload(fx);
}

static void conditional_or_redefined_macro_is_not_a_constant(void **state) {
  (void)state;
  /* (a condition a header decides: the group stays in the parser's view, its define conditional) */
  Fx *fx = load("#if CUDART_VERSION >= 12000\n#define N 8\n#endif\n"
                "#define M 4\n#undef M\n#define M 6\n"
                "__global__ void k(float *x) {\n"
                "  for (int i = 0; i < N; ++i) x[i] = 0;\n"
                "  for (int i = 0; i < M; ++i) x[i] = 0;\n"
                "}\n");
  assert_int_equal(info(fx, 0)->trip_kind, KR_TRIP_SYMBOLIC);
  assert_int_equal(info(fx, 1)->trip_kind, KR_TRIP_SYMBOLIC);
  unload(fx);
}

static void loops_that_never_stop_have_no_trip_count(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "  for (int i = 0; i != 7; i += 2) x[i] = 0;\n"
                "  for (unsigned i = 3; i >= 0; --i) x[i] = 0;\n"
                "  for (int i = 0; i < 10; --i) x[i] = 0;\n"
                "  for (int i = 0; i <= 2147483647; ++i) x[i] = 0;\n"
                "}\n");
  assert_int_equal(info(fx, 0)->trip_kind, KR_TRIP_UNKNOWN);
  assert_true(contains(info(fx, 0)->trip_why, "never becomes false"));
  assert_int_equal(info(fx, 1)->trip_kind, KR_TRIP_UNKNOWN);
  assert_true(contains(info(fx, 1)->trip_why, "overflow"));
  assert_false(info(fx, 2)->canonical);
  assert_true(contains(info(fx, 2)->why, "decreases while the condition"));
  assert_int_equal(info(fx, 3)->trip_kind, KR_TRIP_UNKNOWN);
  unload(fx);
}

static void bound_changed_in_body_makes_trip_count_unknown(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, const int *len, int n) {\n"
                "  for (int i = 0; i < n; ++i) { x[i] = 0; n--; }\n"
                "  for (int i = 0; i < len[0]; ++i) x[i] = 0;\n"
                "}\n");
  assert_true(info(fx, 0)->canonical);
  assert_int_equal(info(fx, 0)->trip_kind, KR_TRIP_UNKNOWN);
  assert_true(contains(info(fx, 0)->trip_why, "bound 'n' may change"));
  assert_int_equal(info(fx, 1)->trip_kind, KR_TRIP_UNKNOWN);
  assert_true(contains(info(fx, 1)->trip_why, "len[0]"));
  unload(fx);
}

static void non_canonical_loops_say_why(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  for (int i = 0; i * i < n; ++i) x[i] = 0;\n"
                "  for (int i = 0; i < n; i *= 2) x[i] = 0;\n"
                "  for (float f = 0; f < 1.0f; f += 0.5f) x[0] = f;\n"
                "  int j = 0;\n"
                "  while (j < n) j++;\n"
                "  for (;;) break;\n"
                "}\n");
  assert_false(info(fx, 0)->canonical);
  assert_true(contains(info(fx, 0)->why, "is not a comparison of 'i'") ||
              contains(info(fx, 0)->why, "does not compare 'i' itself"));
  assert_false(info(fx, 1)->canonical);
  assert_true(contains(info(fx, 1)->why, "does not step 'i' by a fixed stride"));
  assert_false(info(fx, 2)->canonical);
  assert_true(contains(info(fx, 2)->why, "not an integer"));
  assert_false(info(fx, 3)->canonical);
  assert_true(contains(info(fx, 3)->why, "a while loop"));
  assert_false(info(fx, 4)->canonical);
  assert_true(contains(info(fx, 4)->why, "no initializer"));
  unload(fx);
}

/* ---- Body facts ----------------------------------------------------------------------------- */

static void induction_variable_changes_in_the_body_are_found(void **state) {
  (void)state;
  Fx *fx = load("__device__ void bump(int &v) { v++; }\n"
                "__device__ float twice(float v) { return 2 * v; }\n"
                "__global__ void k(float *x, int n) {\n"
                "  for (int i = 0; i < n; ++i) { x[i] = 0; i += 2; }\n"
                "  for (int i = 0; i < n; ++i) { int *p = &i; *p = 0; }\n"
                "  for (int i = 0; i < n; ++i) bump(i);\n"
                "  for (int i = 0; i < n; ++i) x[i] = twice(i) + min(i, 3) + sqrtf(i);\n"
                "  for (int i = 0; i < n; ++i) mystery(i);\n"
                "}\n");
  assert_true(info(fx, 0)->var_modified.found);
  assert_true(contains(info(fx, 0)->var_modified.what, "'i' is assigned at 4:"));
  assert_int_equal(info(fx, 0)->trip_kind, KR_TRIP_UNKNOWN);
  assert_true(contains(info(fx, 1)->var_modified.what, "address taken"));
  assert_true(contains(info(fx, 2)->var_modified.what, "passed to 'bump'"));
  assert_false(info(fx, 3)->var_modified.found);
  assert_int_equal(info(fx, 3)->trip_kind, KR_TRIP_SYMBOLIC);
  assert_true(contains(info(fx, 4)->var_modified.what, "passed to 'mystery'"));
  unload(fx);
}

static void exits_of_nested_loops_and_switches_do_not_count(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  for (int i = 0; i < 4; ++i) {\n"
                "    for (int j = 0; j < n; ++j) { if (x[j] > 0) break; continue; }\n"
                "    switch (n) { case 1: x[i] = 1; break; default: break; }\n"
                "    auto f = [&](int a) { return a; };\n"
                "  }\n"
                "  for (int i = 0; i < 4; ++i) { if (x[i] > 0) break; }\n"
                "  for (int i = 0; i < 4; ++i) { if (x[i] > 0) continue; if (n) return; }\n"
                "  for (int i = 0; i < 4; ++i) { goto out; }\n"
                "out:;\n"
                "}\n");
  const KrLoopInfo *a = info(fx, 0);
  assert_false(a->brk.found);
  assert_false(a->cont.found);
  assert_false(a->ret.found);
  assert_false(a->jump.found);
  assert_true(info(fx, 1)->brk.found); /* the nested j loop's own break */
  assert_true(info(fx, 1)->cont.found);
  assert_true(info(fx, 2)->brk.found);
  assert_string_equal(info(fx, 2)->brk.what, "'break' at 7:47");
  assert_true(info(fx, 3)->cont.found);
  assert_true(info(fx, 3)->ret.found);
  assert_true(info(fx, 4)->jump.found);
  unload(fx);
}

static void macros_that_assign_or_leave_count_as_body_effects(void **state) {
  (void)state;
  Fx *fx = load("#define STEP k += 2\n"
                "#define LEAVE if (acc > 1.0f) break\n"
                "#define SAME(a) ((a) == (a))\n"
                "__global__ void m(float *a) {\n"
                "  float acc = 0.0f;\n"
                "  for (int k = 0; k < 8; ++k) { acc += a[k]; STEP; }\n"
                "  for (int k = 0; k < 8; ++k) { acc += a[k]; LEAVE; }\n"
                "  for (int k = 0; k < 8; ++k) { acc += SAME(acc) ? a[k] : 0; }\n"
                "}\n");
  assert_true(contains(info(fx, 0)->var_modified.what, "assigned by macro 'STEP'"));
  assert_true(contains(info(fx, 1)->brk.what, "inside macro 'LEAVE'"));
  assert_false(info(fx, 1)->var_modified.found);
  assert_false(info(fx, 2)->var_modified.found); /* == compares, it does not assign */
  assert_false(info(fx, 2)->brk.found);
  assert_true(kr_loops_is_macro(fx->lx, "SAME"));
  assert_false(kr_loops_is_macro(fx->lx, "acc"));
  unload(fx);
}

/* ---- Varying sets and invariance ------------------------------------------------------------ */

static void varying_set_holds_assigned_declared_and_escaped_names(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n, int c, int d, int e) {\n"
                "  int *alias = &e;\n"
                "  int acc = 0;\n"
                "  for (int j = 0; j < n; ++j) {\n"
                "    int t = j * 2;\n"
                "    acc += t;\n"
                "    x[c * n + j] = d;\n"
                "  }\n"
                "}\n");
  KrNameSet v;
  kr_loops_varying(fx->lx, 0, &v);
  assert_true(kr_names_has(&v, "j"));
  assert_true(kr_names_has(&v, "t"));
  assert_true(kr_names_has(&v, "acc"));
  assert_true(kr_names_has(&v, "e")); /* its address escapes into 'alias' */
  assert_false(kr_names_has(&v, "c"));
  assert_false(kr_names_has(&v, "d"));
  assert_false(kr_names_has(&v, "n"));
  unload(fx);
}

static void range_for_variables_and_member_calls_vary(void **state) {
  (void)state;
  Fx *fx = load("struct Cur { int k; __device__ void next() { k++; } };\n"
                "__global__ void k(float *x, Cur cur, int v) {\n"
                "  int w[2] = {1, 2};\n"
                "  for (int j = 0; j < 4; ++j) { for (int v : w) x[v] = 0; cur.next(); }\n"
                "}\n");
  KrNameSet s;
  kr_loops_varying(fx->lx, 0, &s);
  assert_true(kr_names_has(&s, "v"));   /* declared by the range-for: not the parameter */
  assert_true(kr_names_has(&s, "cur")); /* next() may change it */
  assert_false(kr_names_has(&s, "w"));
  unload(fx);
}

static void invariant_expressions_read_no_memory_and_no_varying_name(void **state) {
  (void)state;
  Fx *fx = load("#define W 32\n"
                "__device__ int g;\n"
                "__global__ void k(float *x, const int *p, int n, int c) {\n"
                "  __shared__ int s;\n"
                "  for (int j = 0; j < n; ++j) {\n"
                "    x[(blockIdx.x * W + c) * n + j] = 0;\n"
                "    x[c * j] = 0;\n"
                "    x[p[c] + 1] = 0;\n"
                "    x[g + c] = 0;\n"
                "    x[s + c] = 0;\n"
                "    x[min(c, 4) + c] = 0;\n"
                "  }\n"
                "}\n");
  KrNameSet v;
  kr_loops_varying(fx->lx, 0, &v);
  TSNode culprit;
  assert_true(kr_loops_invariant(fx->lx, expr_at(fx, "(blockIdx.x * W + c) * n"), &v, &culprit));
  assert_false(kr_loops_invariant(fx->lx, expr_at(fx, "c * j"), &v, &culprit));
  assert_true(kr_node_text_is(fx->d.tree, culprit, "j"));
  assert_false(kr_loops_invariant(fx->lx, expr_at(fx, "p[c] + 1"), &v, &culprit));
  assert_true(kr_node_text_is(fx->d.tree, culprit, "p[c]"));
  assert_false(kr_loops_invariant(fx->lx, expr_at(fx, "g + c"), &v, &culprit));
  assert_false(kr_loops_invariant(fx->lx, expr_at(fx, "s + c"), &v, &culprit));
  assert_false(kr_loops_invariant(fx->lx, expr_at(fx, "min(c, 4) + c"), &v, &culprit));
  unload(fx);
}

/* ---- Constants and types -------------------------------------------------------------------- */

static void constant_evaluation_refuses_overflow_and_unsigned(void **state) {
  (void)state;
  Fx *fx = load("#define BIG (65536 * 65536)\n"
                "#define U 4u\n"
                "#define S ((1 << 4) + 2 * 3 - 10 / 3 % 2)\n"
                "__global__ void k(float *x) {\n"
                "  x[BIG] = 0; x[U] = 0; x[S] = 0; x[(long long)3 * 5] = 0;\n"
                "}\n");
  long long v;
  assert_false(kr_loops_const(fx->lx, index_at(fx, "x[BIG]"), &v));
  assert_false(kr_loops_const(fx->lx, index_at(fx, "x[U]"), &v));
  assert_true(kr_loops_const(fx->lx, index_at(fx, "x[S]"), &v));
  assert_int_equal(v, 16 + 6 - 1);
  assert_true(kr_loops_const(fx->lx, expr_at(fx, "(long long)3 * 5"), &v));
  assert_int_equal(v, 15);
  unload(fx);
}

static void expression_types_follow_declarations_and_literals(void **state) {
  (void)state;
  Fx *fx = load("template <typename T>\n"
                "__global__ void k(const float *x, double *d, T *t, size_t n, float4 *v, int m) {\n"
                "  float a = x[0] * 2.0f;\n"
                "  double b = d[0] / 3;\n"
                "  auto e = expf(a) + exp(a) + exp(b) + v[0].y + t[0];\n"
                "  size_t q = n + m + threadIdx.x;\n"
                "  unsigned u = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "}\n");
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "x[0] * 2.0f")).cls, KR_TY_FLOAT);
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "d[0] / 3")).cls, KR_TY_DOUBLE);
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "expf(a)")).cls, KR_TY_FLOAT);
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "exp(a)")).cls, KR_TY_FLOAT);
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "exp(b)")).cls, KR_TY_DOUBLE);
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "v[0].y")).cls, KR_TY_FLOAT);
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "t[0]")).cls, KR_TY_UNKNOWN);
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "n + m + threadIdx.x")).cls, KR_TY_ULONG);
  assert_int_equal(kr_loops_type(fx->lx, expr_at(fx, "blockIdx.x * blockDim.x + threadIdx.x")).cls,
                   KR_TY_UINT);
  KrType p = kr_loops_type(fx->lx, expr_at(fx, "x[0]"));
  assert_int_equal(p.cls, KR_TY_FLOAT);
  assert_int_equal(p.depth, 0);
  unload(fx);
}

/* ---- Where text goes ------------------------------------------------------------------------ */

static void loop_head_is_above_its_pragma_lines(void **state) {
  (void)state;
  const char *text = "__global__ void k(float *x, int n) {\n"
                     "  for (int i = 0; i < n; ++i)\n"
                     "#pragma unroll\n"
                     "    for (int j = 0; j < 4; ++j) x[j] = i;\n"
                     "  {  for (int q = 0; q < 2; ++q) x[q] = 0; }\n"
                     "}\n";
  Fx *fx = load(text);
  bool own;
  uint32_t at = kr_loops_head(fx->lx, 1, &own);
  assert_true(own);
  assert_int_equal(at, (uint32_t)(strstr(text, "#pragma") - text));
  assert_false(kr_loops_in_block(fx->lx, 1)); /* the unbraced body of loop 0 */
  assert_true(kr_loops_in_block(fx->lx, 0));
  at = kr_loops_head(fx->lx, 2, &own);
  assert_false(own);
  assert_int_equal(at, (uint32_t)(strstr(text, "for (int q") - text));
  assert_true(kr_loops_name_used(fx->lx, "unroll"));
  assert_false(kr_loops_name_used(fx->lx, "nroll"));
  assert_false(kr_loops_name_used(fx->lx, "kr_idx0"));
  unload(fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(trip_count_of_constant_loop_is_known),
    cmocka_unit_test(trip_count_of_downward_loops_is_known),
    cmocka_unit_test(trip_count_sees_defines_and_constexpr_constants),
    cmocka_unit_test(trip_count_over_template_parameter_is_symbolic),
    cmocka_unit_test(symbolic_trip_count_text_accounts_for_start_and_stride),
    cmocka_unit_test(conditional_or_redefined_macro_is_not_a_constant),
    cmocka_unit_test(loops_that_never_stop_have_no_trip_count),
    cmocka_unit_test(bound_changed_in_body_makes_trip_count_unknown),
    cmocka_unit_test(non_canonical_loops_say_why),
    cmocka_unit_test(induction_variable_changes_in_the_body_are_found),
    cmocka_unit_test(exits_of_nested_loops_and_switches_do_not_count),
    cmocka_unit_test(macros_that_assign_or_leave_count_as_body_effects),
    cmocka_unit_test(varying_set_holds_assigned_declared_and_escaped_names),
    cmocka_unit_test(range_for_variables_and_member_calls_vary),
    cmocka_unit_test(invariant_expressions_read_no_memory_and_no_varying_name),
    cmocka_unit_test(constant_evaluation_refuses_overflow_and_unsigned),
    cmocka_unit_test(expression_types_follow_declarations_and_literals),
    cmocka_unit_test(loop_head_is_above_its_pragma_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
