/* tests/unit/test_scope.c: the rewrite layer's front-end units on small kernels: the declaration
 * table and name resolution (frontend/scope.h), constant evaluation (consteval.h), expression
 * types (types.h) and thread uniformity (uniform.h), each asked directly, without a loop
 * analysis around it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/kr_test.h"

#include <stdlib.h>
#include <string.h>

#include "frontend/consteval.h"
#include "frontend/scope.h"
#include "frontend/types.h"
#include "frontend/uniform.h"

typedef struct Fx {
  KrTestDoc d;
  const KrKernel *k;
  KrScope *sc;
} Fx;

static Fx *load(const char *text) {
  Fx *fx = calloc(1, sizeof *fx);
  kr_test_parse(&fx->d, text);
  assert_true(fx->d.model->kernels.len >= 1);
  fx->k = &fx->d.model->kernels.data[0];
  fx->sc = kr_scope_new(fx->d.tree, fx->k, fx->d.arena);
  return fx;
}

static void unload(Fx *fx) {
  kr_test_free(&fx->d);
  free(fx);
}

/* The smallest named node that starts at the n-th occurrence (0-based) of `marker` and spans it. */
static TSNode node_at(Fx *fx, const char *marker, int nth) {
  const char *p = strstr(fx->d.src.text, marker);
  for (int i = 0; p && i < nth; i++) p = strstr(p + 1, marker);
  assert_non_null(p);
  uint32_t at = (uint32_t)(p - fx->d.src.text);
  TSNode n = ts_node_named_descendant_for_byte_range(kr_tree_root(fx->d.tree), at,
                                                     at + (uint32_t)strlen(marker));
  while (ts_node_end_byte(n) - ts_node_start_byte(n) < strlen(marker)) n = ts_node_parent(n);
  assert_int_equal(ts_node_start_byte(n), at);
  assert_int_equal(ts_node_end_byte(n) - at, strlen(marker));
  return n;
}

/* The identifier that starts at the n-th occurrence of `marker`. */
static TSNode ident_at(Fx *fx, const char *marker, int nth) {
  const char *p = strstr(fx->d.src.text, marker);
  for (int i = 0; p && i < nth; i++) p = strstr(p + 1, marker);
  assert_non_null(p);
  uint32_t at = (uint32_t)(p - fx->d.src.text);
  TSNode n = ts_node_named_descendant_for_byte_range(kr_tree_root(fx->d.tree), at, at + 1);
  assert_int_equal(ts_node_symbol(n), fx->d.tree->sym.identifier);
  return n;
}

/* ---- The declaration table and resolution ---------------------------------------------------- */

static void lookup_finds_one_declaration_and_refuses_two(void **state) {
  (void)state;
  Fx *fx = load("const int W = 8;\n"
                "__global__ void k(float *x, int n) {\n"
                "  int t = threadIdx.x;\n"
                "  { float t = 1.0f; x[0] = t; }\n"
                "  x[t] = n;\n"
                "}\n");
  const KrDecl *n = kr_scope_lookup(fx->sc, "n");
  assert_non_null(n);
  assert_true(n->is_param && n->in_kernel);
  assert_int_equal(n->ty.cls, KR_TY_INT);
  const KrDecl *w = kr_scope_lookup(fx->sc, "W");
  assert_non_null(w);
  assert_true(w->is_const && !w->in_kernel);
  const KrDecl *x = kr_scope_lookup(fx->sc, "x");
  assert_non_null(x);
  assert_int_equal(x->ty.cls, KR_TY_FLOAT);
  assert_int_equal(x->ty.depth, 1);
  assert_null(kr_scope_lookup(fx->sc, "t"));      /* declared twice: ambiguous by spelling */
  assert_null(kr_scope_lookup(fx->sc, "nothing"));
  unload(fx);
}

static void resolution_follows_block_scoping(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  int t = threadIdx.x;\n"
                "  { float t = 1.0f; x[0] = t; }\n"
                "  x[t] = n;\n"
                "}\n");
  KrBinding inner = kr_resolve(fx->d.tree, fx->k, ident_at(fx, "t; }", 0));
  KrBinding outer = kr_resolve(fx->d.tree, fx->k, ident_at(fx, "t] = n", 0));
  assert_int_equal(inner.kind, KR_BIND_LOCAL);
  assert_int_equal(outer.kind, KR_BIND_LOCAL);
  assert_false(kr_binding_same(inner, outer));
  assert_true(kr_node_text_is(fx->d.tree, inner.value, "1.0f"));
  KrBinding n = kr_resolve(fx->d.tree, fx->k, ident_at(fx, "n;", 0));
  assert_int_equal(n.kind, KR_BIND_PARAM);
  assert_int_equal(n.param, 1);
  unload(fx);
}

static void names_used_anywhere_in_the_file_are_taken(void **state) {
  (void)state;
  Fx *fx = load("#define TILE 16\n"
                "__device__ float helper(float v) { return v; }\n"
                "__global__ void k(float *x) { x[0] = helper(TILE); }\n");
  assert_true(kr_scope_name_used(fx->sc, "helper"));
  assert_true(kr_scope_name_used(fx->sc, "TILE"));
  assert_true(kr_scope_is_macro(fx->sc, "TILE"));
  assert_false(kr_scope_is_macro(fx->sc, "helper"));
  assert_false(kr_scope_name_used(fx->sc, "help"));   /* a prefix is not the name */
  assert_false(kr_scope_name_used(fx->sc, "kr_tmp"));
  unload(fx);
}

static void calls_to_reference_parameters_may_modify(void **state) {
  (void)state;
  Fx *fx = load("__device__ void bump(int &v) { v++; }\n"
                "__device__ int get(const int &v) { return v; }\n"
                "__global__ void k(int *x) { int a = 0; bump(a); x[0] = get(a) + max(a, 1); }\n");
  const char *callee;
  assert_true(kr_scope_call_may_modify(fx->sc, node_at(fx, "bump(a)", 0), 0, &callee));
  assert_string_equal(callee, "bump");
  assert_false(kr_scope_call_may_modify(fx->sc, node_at(fx, "get(a)", 0), 0, &callee));
  assert_false(kr_scope_call_may_modify(fx->sc, node_at(fx, "max(a, 1)", 0), 0, &callee));
  unload(fx);
}

/* ---- Constants ------------------------------------------------------------------------------- */

static void constants_come_from_defines_and_const_variables(void **state) {
  (void)state;
  Fx *fx = load("#define N (4 * W)\n"
                "const int W = 8;\n"
                "#define LATE 3\n"
                "template <int T> __global__ void k(float *x) {\n"
                "  constexpr long long BIG = 1LL << 40;\n"
                "  x[N + 1] = x[BIG] + x[T] + x[2147483647 + 1];\n"
                "}\n");
  long long v;
  assert_true(kr_const_eval(fx->sc, node_at(fx, "N + 1", 0), &v));
  assert_int_equal(v, 33);
  bool wide = false;
  assert_true(kr_const_of_name(fx->sc, "BIG", (uint32_t)fx->d.src.len, &v, &wide));
  assert_true(v == 1LL << 40 && wide);
  assert_false(kr_const_eval(fx->sc, ident_at(fx, "T] +", 0), &v));    /* template parameter */
  assert_false(kr_const_eval(fx->sc, node_at(fx, "2147483647 + 1", 0), &v)); /* int overflow */
  assert_false(kr_const_of_name(fx->sc, "LATE", 0, &v, NULL));     /* defined after the use */
  assert_true(kr_const_eval_text(fx->sc, "(1 << 4) - 1", 12, 0, &v, &wide));
  assert_true(v == 15 && !wide);
  unload(fx);
}

static void recursive_definitions_are_not_constants(void **state) {
  (void)state;
  Fx *fx = load("#define A (B + 1)\n"
                "#define B (A + 1)\n"
                "__global__ void k(float *x) { x[A] = 0; }\n");
  long long v;
  assert_false(kr_const_eval(fx->sc, ident_at(fx, "A] = 0", 0), &v));
  assert_false(kr_const_of_name(fx->sc, "A", (uint32_t)fx->d.src.len, &v, NULL));
  unload(fx);
}

/* ---- Types ----------------------------------------------------------------------------------- */

static void type_names_drop_qualifiers_and_know_vectors(void **state) {
  (void)state;
  assert_int_equal(kr_type_of_name("const unsigned int").cls, KR_TY_UINT);
  assert_int_equal(kr_type_of_name("size_t").cls, KR_TY_ULONG);
  KrType f4 = kr_type_of_name("float4");
  assert_true(f4.cls == KR_TY_FLOAT && f4.vector);
  assert_int_equal(kr_type_of_name("MyStruct").cls, KR_TY_UNKNOWN);
  assert_true(kr_type_returns_float("__expf"));
  assert_false(kr_type_returns_float("exp"));
}

static void expression_types_follow_the_scope(void **state) {
  (void)state;
  Fx *fx = load("#define SCALE 2.0f\n"
                "__global__ void k(float *x, double *y, long n) {\n"
                "  int i = threadIdx.x;\n"
                "  x[0] = x[i] * SCALE;\n"
                "  y[0] = y[i] + n;\n"
                "  x[1] = expf(x[i]) + (n + i);\n"
                "}\n");
  assert_int_equal(kr_type_of(fx->sc, node_at(fx, "x[i] * SCALE", 0)).cls, KR_TY_FLOAT);
  assert_int_equal(kr_type_of(fx->sc, node_at(fx, "y[i] + n", 0)).cls, KR_TY_DOUBLE);
  assert_int_equal(kr_type_of(fx->sc, node_at(fx, "(n + i)", 0)).cls, KR_TY_LONG);
  assert_int_equal(kr_type_of(fx->sc, node_at(fx, "expf(x[i])", 0)).cls, KR_TY_FLOAT);
  KrType p = kr_type_of(fx->sc, ident_at(fx, "x[0] = x[i]", 0));
  assert_true(p.cls == KR_TY_FLOAT && p.depth == 1);
  assert_int_equal(kr_type_of_ident(fx->sc, "threadIdx").cls, KR_TY_UINT);
  unload(fx);
}

/* ---- Uniformity ------------------------------------------------------------------------------ */

static void uniform_values_are_shared_by_every_thread(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, const float *s, int n) {\n"
                "  int w = blockDim.x * gridDim.x;\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  float a = s[n / 2] * 2.0f;\n"
                "  int c = 0;\n"
                "  c += 1;\n"
                "  x[i] = a + w + c + sqrtf(a);\n"
                "}\n");
  KrUniform *u = kr_uniform_new(fx->d.tree, fx->k, fx->d.arena);
  TSNode culprit;
  assert_true(kr_uniform(u, node_at(fx, "a + w", 0), &culprit));
  assert_true(ts_node_is_null(culprit));
  assert_true(kr_uniform(u, node_at(fx, "sqrtf(a)", 0), NULL));
  /* i is built from blockIdx and threadIdx: the culprit is the innermost construct that is not uniform. */
  assert_false(kr_uniform(u, node_at(fx, "x[i]", 0), &culprit));
  assert_true(kr_node_text_is(fx->d.tree, culprit, "blockIdx"));
  /* c is changed in the kernel. */
  assert_false(kr_uniform(u, node_at(fx, "a + w + c", 0), &culprit));
  assert_true(kr_node_text_is(fx->d.tree, culprit, "c"));
  /* A pass's lane variable is varying when it says so. */
  KrBinding w = kr_resolve(fx->d.tree, fx->k, ident_at(fx, "w + c", 0));
  assert_false(kr_uniform_except(u, node_at(fx, "a + w", 0), w, &culprit));
  assert_true(kr_node_text_is(fx->d.tree, culprit, "w"));
  unload(fx);
}

static void collectives_and_thread_dependent_calls_are_not_uniform(void **state) {
  (void)state;
  Fx *fx = load("__device__ int lane() { return threadIdx.x % 32; }\n"
                "__global__ void k(int *x, int n) {\n"
                "  x[0] = __shfl_sync(0xffffffff, n, 0) + lane() + clock();\n"
                "}\n");
  KrUniform *u = kr_uniform_new(fx->d.tree, fx->k, fx->d.arena);
  assert_true(kr_uniform_collective("__syncthreads"));
  assert_true(kr_uniform_collective("__ballot_sync"));
  assert_false(kr_uniform_collective("sqrtf"));
  assert_false(kr_uniform(u, node_at(fx, "__shfl_sync(0xffffffff, n, 0)", 0), NULL));
  assert_false(kr_uniform(u, node_at(fx, "lane()", 0), NULL));
  assert_false(kr_uniform(u, node_at(fx, "clock()", 0), NULL));
  assert_false(ts_node_is_null(kr_tree_function(fx->d.tree, "lane")));
  assert_true(ts_node_is_null(kr_tree_function(fx->d.tree, "clock")));
  unload(fx);
}

/* ---- Tree helpers ---------------------------------------------------------------------------- */

static void every_cached_symbol_resolves(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) { x[0] = 0; }\n");
  const KrSyms *s = &fx->d.tree->sym;
  /* A name the grammar does not have resolves to 0, and every comparison with it would fail
   * silently. */
#define CHECK_SYM(n) if (strcmp(#n, "ERROR") != 0) assert_int_not_equal(s->n, 0);
  KR_SYMBOLS(CHECK_SYM)
#undef CHECK_SYM
#define CHECK_WORD(n, str) assert_int_not_equal(s->n, 0);
  KR_KEYWORDS(CHECK_WORD)
  KR_NAMED_WORDS(CHECK_WORD)
#undef CHECK_WORD
  unload(fx);
}

static void tree_helpers_see_through_parentheses_to_operators_and_callees(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) { x[0] = ((n + 1)) * expf(x[1]); }\n");
  const KrTree *t = fx->d.tree;
  TSNode inner = kr_node_strip_parens(t, node_at(fx, "((n + 1))", 0));
  assert_true(kr_node_text_is(t, inner, "n + 1"));
  assert_string_equal(kr_node_operator(t, inner, fx->d.arena), "+");
  assert_true(kr_node_operator_is(t, inner, "+"));
  assert_false(kr_node_operator_is(t, inner, "-"));
  assert_string_equal(kr_node_operator(t, ident_at(fx, "n + 1", 0), fx->d.arena), "");
  assert_string_equal(kr_node_callee(t, node_at(fx, "expf(x[1])", 0), fx->d.arena), "expf");
  assert_true(kr_node_text_is(t, kr_node_field(inner, "left"), "n"));
  assert_true(ts_node_is_null(kr_node_strip_parens(t, (TSNode){0})));
  char *folded = kr_text_fold(fx->d.arena, "  unsigned \\\n   int ", 20);
  assert_string_equal(folded, "unsigned int");
  unload(fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(lookup_finds_one_declaration_and_refuses_two),
    cmocka_unit_test(resolution_follows_block_scoping),
    cmocka_unit_test(names_used_anywhere_in_the_file_are_taken),
    cmocka_unit_test(calls_to_reference_parameters_may_modify),
    cmocka_unit_test(constants_come_from_defines_and_const_variables),
    cmocka_unit_test(recursive_definitions_are_not_constants),
    cmocka_unit_test(type_names_drop_qualifiers_and_know_vectors),
    cmocka_unit_test(expression_types_follow_the_scope),
    cmocka_unit_test(uniform_values_are_shared_by_every_thread),
    cmocka_unit_test(collectives_and_thread_dependent_calls_are_not_uniform),
    cmocka_unit_test(every_cached_symbol_resolves),
    cmocka_unit_test(tree_helpers_see_through_parentheses_to_operators_and_callees),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
