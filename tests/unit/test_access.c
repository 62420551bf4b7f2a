/* tests/unit/test_access.c: read/write sets per pointer parameter (frontend/access.h): writes
 * seen through aliases, casts, address-taking, helpers and atomics; unsure pointers and why. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tests/unit/kr_test.h"

#include <string.h>

#include "frontend/access.h"

typedef struct Fx {
  KrTestDoc d;
  KrAccess *acc;
} Fx;

/* Parses `text` and analyses the kernel named `kernel`. */
static Fx *load(const char *text, const char *kernel) {
  Fx *fx = calloc(1, sizeof *fx);
  kr_test_parse(&fx->d, text);
  const KrKernel *k = kr_model_find(fx->d.model, kernel);
  assert_non_null(k);
  fx->acc = kr_access_new(fx->d.tree, k, fx->d.arena);
  return fx;
}

static void unload(Fx *fx) {
  kr_test_free(&fx->d);
  free(fx);
}

static const KrPtrAccess *ptr(Fx *fx, const char *name) {
  const KrPtrAccess *p = kr_access_find(fx->acc, name);
  assert_non_null(p);
  return p;
}

static const char *site_text(Fx *fx, const KrAccessSite *s) {
  return kr_node_text(fx->d.tree, s->node, fx->d.arena);
}

/* ---- Direct accesses ------------------------------------------------------------------------- */

static void elementwise_kernel_reads_x_and_writes_y(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(const float *x, float *y, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) y[i] = 2.0f * x[i];\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x"), *y = ptr(fx, "y");
  assert_true(x->sure && y->sure);
  assert_int_equal(x->nreads, 1);
  assert_int_equal(x->nwrites, 0);
  assert_int_equal(y->nreads, 0);
  assert_int_equal(y->nwrites, 1);
  const KrAccessSite *w = kr_access_first_write(y);
  assert_string_equal(site_text(fx, w), "y[i]");
  assert_int_equal(w->line, 3);
  assert_int_equal(w->col, 14);
  assert_true(w->direct);
  assert_string_equal(w->elem_type, "float");
  assert_null(x->mutable_why);
  assert_null(kr_access_find(fx->acc, "n")); /* not a pointer */
  assert_false(x->is_volatile);
  unload(fx);
}

static void compound_assignment_and_increment_read_and_write(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *a, int *c) {\n"
                "  a[threadIdx.x] += 1.0f;\n"
                "  ++c[0];\n}\n", "k");
  const KrPtrAccess *a = ptr(fx, "a"), *c = ptr(fx, "c");
  assert_int_equal(a->sites.len, 1);
  assert_int_equal(a->sites.data[0].kind, KR_ACCESS_READ | KR_ACCESS_WRITE);
  assert_int_equal(c->sites.data[0].kind, KR_ACCESS_READ | KR_ACCESS_WRITE);
  assert_string_equal(a->mutable_why, "it is written at 2:3");
  unload(fx);
}

static void atomic_on_an_element_address_is_a_write(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(const float *x, float *sum) {\n"
                "  atomicAdd(&sum[0], x[threadIdx.x]);\n}\n", "k");
  const KrPtrAccess *s = ptr(fx, "sum");
  assert_true(s->sure);
  assert_int_equal(s->nwrites, 1);
  assert_string_equal(site_text(fx, kr_access_first_write(s)),
                      "atomicAdd(&sum[0], x[threadIdx.x])");
  assert_true(ts_node_is_null(kr_access_first_write(s)->elem));
  assert_int_equal(ptr(fx, "x")->nwrites, 0);
  assert_true(ptr(fx, "x")->sure); /* atomicAdd takes values besides the address */
  unload(fx);
}

static void ldg_of_an_element_address_is_a_read(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(const float *x, float *y) {\n"
                "  y[threadIdx.x] = __ldg(&x[threadIdx.x]) + __ldg(x + 1);\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x");
  assert_true(x->sure);
  assert_int_equal(x->nreads, 2);
  assert_int_equal(x->nwrites, 0);
  unload(fx);
}

/* ---- Aliases and casts ----------------------------------------------------------------------- */

static void write_through_alias_with_offset_is_seen(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, int n) {\n"
                "  float *p = x + 4;\n"
                "  p[threadIdx.x] = 0.0f;\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x");
  assert_true(x->sure);
  assert_int_equal(x->nwrites, 1);
  const KrAccessSite *w = kr_access_first_write(x);
  assert_false(w->direct);
  assert_string_equal(w->via, "pointer arithmetic, alias 'p' (2:10)");
  assert_int_equal(x->naliases, 1);
  unload(fx);
}

static void write_through_auto_alias_dereference_is_seen(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "  auto q = x;\n"
                "  q++;\n"
                "  *q = 1.0f;\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x");
  assert_int_equal(x->nwrites, 1);
  assert_string_equal(site_text(fx, kr_access_first_write(x)), "*q");
  assert_string_equal(kr_access_first_write(x)->elem_type, "float");
  assert_false(x->moved); /* the alias moved, not the parameter */
  unload(fx);
}

static void alias_assigned_after_declaration_is_followed(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, float *y, bool c) {\n"
                "  float *q;\n"
                "  q = c ? x : y;\n"
                "  q[threadIdx.x] = 1.0f;\n}\n", "k");
  assert_int_equal(ptr(fx, "x")->nwrites, 1);
  assert_int_equal(ptr(fx, "y")->nwrites, 1);
  unload(fx);
}

static void write_through_c_cast_is_seen(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "  ((float4 *)x)[threadIdx.x] = make_float4(0, 0, 0, 0);\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x");
  assert_true(x->sure);
  const KrAccessSite *w = kr_access_first_write(x);
  assert_non_null(w);
  assert_string_equal(w->elem_type, "float4");
  assert_string_equal(w->via, "cast to 'float4 *'");
  unload(fx);
}

static void write_through_reinterpret_cast_alias_is_seen(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "  auto v = reinterpret_cast<float2 *>(x);\n"
                "  v[threadIdx.x].y = 0.0f;\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x");
  const KrAccessSite *w = kr_access_first_write(x);
  assert_non_null(w);
  assert_string_equal(site_text(fx, w), "v[threadIdx.x].y");
  assert_string_equal(w->elem_type, "float2");
  assert_string_equal(x->mutable_why, "cast to 'float2 *' at 2:12");
  unload(fx);
}

static void write_through_element_reference_is_seen(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, const float *y) {\n"
                "  float &r = x[threadIdx.x];\n"
                "  const float &s = y[threadIdx.x];\n"
                "  r = s * 2.0f;\n}\n", "k");
  assert_int_equal(ptr(fx, "x")->nwrites, 1);
  assert_string_equal(site_text(fx, kr_access_first_write(ptr(fx, "x"))), "r");
  assert_int_equal(ptr(fx, "y")->nwrites, 0);
  assert_int_equal(ptr(fx, "y")->nreads, 1);
  unload(fx);
}

static void moving_the_parameter_is_recorded(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(const float *x, float *y, int n) {\n"
                "  x += blockIdx.x * n;\n"
                "  y[0] = x[threadIdx.x];\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x");
  assert_true(x->moved);
  assert_int_equal(x->moved_at, (uint32_t)(strstr(fx->d.src.text, "x +=") - fx->d.src.text));
  assert_int_equal(x->nreads, 1);
  assert_false(ptr(fx, "y")->moved);
  unload(fx);
}

static void explicit_non_const_alias_needs_a_mutable_pointee(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, float *y) {\n"
                "  float *p = x;\n"
                "  const float *q = y;\n"
                "  float s = p[0] + q[0] + ((const float4 *)y)[1].x;\n"
                "  (void)s;\n}\n", "k");
  assert_string_equal(ptr(fx, "x")->mutable_why, "alias 'p' is declared 'float *' at 2:10");
  assert_null(ptr(fx, "y")->mutable_why);
  assert_int_equal(ptr(fx, "x")->nwrites, 0);
  unload(fx);
}

static void shadowing_local_is_not_the_parameter(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, float *y) {\n"
                "  { float x[4]; x[0] = 1.0f; y[0] = x[0]; }\n"
                "  y[1] = x[1];\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x");
  assert_int_equal(x->nwrites, 0);
  assert_int_equal(x->nreads, 1);
  assert_int_equal(x->sites.data[0].line, 3);
  unload(fx);
}

static void volatile_pointee_is_recorded(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(volatile int *flag, const float *x) {\n"
                "  while (flag[0] == 0) {}\n}\n", "k");
  assert_true(ptr(fx, "flag")->is_volatile);
  assert_false(ptr(fx, "x")->is_volatile);
  assert_int_equal(ptr(fx, "flag")->nreads, 1);
  unload(fx);
}

static void comparisons_are_not_accesses(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, float *y) {\n"
                "  if (x == y || !x) return;\n"
                "  y[0] = 1.0f;\n}\n", "k");
  assert_int_equal(ptr(fx, "x")->sites.len, 0);
  assert_true(ptr(fx, "x")->sure);
  unload(fx);
}

/* ---- Helpers --------------------------------------------------------------------------------- */

static void write_in_a_device_helper_is_seen(void **state) {
  (void)state;
  Fx *fx = load("__device__ void store(float *p, int i, float v) { p[i] = v; }\n"
                "__device__ float load(const float *p, int i) { return p[i]; }\n"
                "__global__ void k(float *x, const float *y) {\n"
                "  store(x, threadIdx.x, load(y, threadIdx.x));\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x"), *y = ptr(fx, "y");
  assert_true(x->sure && y->sure);
  const KrAccessSite *w = kr_access_first_write(x);
  assert_non_null(w);
  assert_string_equal(w->via, "helper 'store' (writes at 1:51)");
  assert_int_equal(w->line, 4);
  assert_int_equal(y->nwrites, 0);
  assert_int_equal(y->nreads, 1);
  assert_null(y->mutable_why);
  unload(fx);
}

static void address_escaping_to_a_declared_helper_is_unsure(void **state) {
  (void)state;
  Fx *fx = load("__device__ void mystery(float *p);\n"
                "__device__ float peek(const float *p);\n"
                "__global__ void k(float *x, float *y) {\n"
                "  mystery(&x[threadIdx.x]);\n"
                "  y[0] = peek(y + 1);\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x");
  assert_false(x->sure);
  assert_string_equal(x->unsure_why, "passed to 'mystery' at 4:3, which is declared but not "
                                     "defined in this file");
  assert_int_equal(x->unsure_at, (uint32_t)(strstr(fx->d.src.text, "mystery(&") - fx->d.src.text));
  assert_true(ptr(fx, "y")->sure); /* a const pointer parameter is only read */
  unload(fx);
}

static void unknown_function_makes_the_pointer_unsure(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, float *y) {\n"
                "  y[0] = expf(x[0]) + fmaxf(x[1], 0.0f);\n"
                "  external_fill(y);\n}\n", "k");
  assert_true(ptr(fx, "x")->sure);
  assert_false(ptr(fx, "y")->sure);
  assert_string_equal(ptr(fx, "y")->unsure_why,
                      "passed to 'external_fill' at 3:3, which is not defined in this file");
  unload(fx);
}

static void element_passed_to_unknown_function_is_unsure(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "  bump(x[threadIdx.x]);\n}\n", "k");
  assert_false(ptr(fx, "x")->sure);
  assert_non_null(strstr(ptr(fx, "x")->unsure_why, "the element 'x[threadIdx.x]' is passed to "
                                                    "'bump' at 2:8"));
  unload(fx);
}

static void element_bound_to_a_helper_reference_is_a_write(void **state) {
  (void)state;
  Fx *fx = load("__device__ void bump(float &v, const float &w) { v += w; }\n"
                "__global__ void k(float *x, const float *y) {\n"
                "  auto twice = [](float t) { return 2.0f * t; };\n"
                "  bump(x[threadIdx.x], y[threadIdx.x]);\n"
                "  x[0] = twice(y[1]);\n}\n", "k");
  const KrPtrAccess *x = ptr(fx, "x"), *y = ptr(fx, "y");
  assert_true(x->sure && y->sure);
  assert_int_equal(x->sites.data[0].kind, KR_ACCESS_READ | KR_ACCESS_WRITE);
  assert_string_equal(site_text(fx, &x->sites.data[0]), "x[threadIdx.x]");
  assert_int_equal(y->nwrites, 0);
  assert_int_equal(y->nreads, 2);
  unload(fx);
}

/* ---- Escapes --------------------------------------------------------------------------------- */

static void pointer_converted_to_integer_is_unsure(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x, unsigned long long *out) {\n"
                "  out[0] = (unsigned long long)x;\n}\n", "k");
  assert_false(ptr(fx, "x")->sure);
  assert_string_equal(ptr(fx, "x")->unsure_why, "converted to 'unsigned long long' at 2:12");
  unload(fx);
}

/* A remainder of the address, alone or of several addresses or-ed (vectorize's run-time check),
 * reaches no memory; the address itself, or arithmetic on it, could be turned back into a pointer. */
static void alignment_test_of_the_address_is_not_an_escape(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(const float *x, float *y, unsigned long long *out) {\n"
                "  const bool a = (reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) % 16 == 0;\n"
                "  if (a) y[threadIdx.x] = x[threadIdx.x];\n"
                "  out[0] = ((unsigned long long)x + 4) % 16;\n}\n", "k");
  assert_true(ptr(fx, "y")->sure);
  assert_false(ptr(fx, "x")->sure);
  assert_string_equal(ptr(fx, "x")->unsure_why, "converted to 'unsigned long long' at 4:13");
  unload(fx);
}

static void pointer_stored_into_memory_is_unsure(void **state) {
  (void)state;
  Fx *fx = load("struct S { float *p; };\n"
                "__global__ void k(float *x, S *s, float **t) {\n"
                "  s->p = x;\n}\n", "k");
  assert_false(ptr(fx, "x")->sure);
  assert_string_equal(ptr(fx, "x")->unsure_why, "stored into memory ('s->p') at 3:3");
  assert_false(ptr(fx, "t")->sure); /* pointer to pointers */
  assert_non_null(strstr(ptr(fx, "t")->unsure_why, "only one level of pointers is analysed"));
  unload(fx);
}

static void pointer_handed_to_a_lambda_is_unsure(void **state) {
  (void)state;
  Fx *fx = load("__global__ void k(float *x) {\n"
                "  auto f = [](float *p) { p[0] = 1.0f; };\n"
                "  f(x);\n}\n", "k");
  assert_false(ptr(fx, "x")->sure);
  assert_non_null(strstr(ptr(fx, "x")->unsure_why, "passed to 'f' at 3:3"));
  unload(fx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(elementwise_kernel_reads_x_and_writes_y),
    cmocka_unit_test(compound_assignment_and_increment_read_and_write),
    cmocka_unit_test(atomic_on_an_element_address_is_a_write),
    cmocka_unit_test(ldg_of_an_element_address_is_a_read),
    cmocka_unit_test(write_through_alias_with_offset_is_seen),
    cmocka_unit_test(write_through_auto_alias_dereference_is_seen),
    cmocka_unit_test(alias_assigned_after_declaration_is_followed),
    cmocka_unit_test(write_through_c_cast_is_seen),
    cmocka_unit_test(write_through_reinterpret_cast_alias_is_seen),
    cmocka_unit_test(write_through_element_reference_is_seen),
    cmocka_unit_test(moving_the_parameter_is_recorded),
    cmocka_unit_test(explicit_non_const_alias_needs_a_mutable_pointee),
    cmocka_unit_test(shadowing_local_is_not_the_parameter),
    cmocka_unit_test(volatile_pointee_is_recorded),
    cmocka_unit_test(comparisons_are_not_accesses),
    cmocka_unit_test(write_in_a_device_helper_is_seen),
    cmocka_unit_test(address_escaping_to_a_declared_helper_is_unsure),
    cmocka_unit_test(unknown_function_makes_the_pointer_unsure),
    cmocka_unit_test(element_passed_to_unknown_function_is_unsure),
    cmocka_unit_test(element_bound_to_a_helper_reference_is_a_write),
    cmocka_unit_test(pointer_converted_to_integer_is_unsure),
    cmocka_unit_test(alignment_test_of_the_address_is_not_an_escape),
    cmocka_unit_test(pointer_stored_into_memory_is_unsure),
    cmocka_unit_test(pointer_handed_to_a_lambda_is_unsure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
