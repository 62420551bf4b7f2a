/* tests/unit/test_spec_expr.c: the spec expressions (runtime/expr.h) and what specs build on them
 * (runtime/spec.h, runtime/prun.c): integer and floating values with C's rules, pow, log2, min
 * and max, sizes of 0, float arguments packed as the parameter's type, buffers passed at an
 * element offset, and launch lists made by a Lua function of the sizes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/expr.h"
#include "runtime/prun.h"

/* ---- The evaluator ------------------------------------------------------------------------------- */

static bool sizes(void *ctx, const char *name, int64_t *v) {
  const int64_t *n = ctx;
  if (strcmp(name, "n") == 0) return *v = n[0], true;
  if (strcmp(name, "m") == 0) return *v = n[1], true;
  return false;
}

/* The value of `text` at n, m; fails the test when it does not evaluate. */
static KrExprValue value_at(const char *text, int64_t n, int64_t m) {
  KrArena *a = kr_arena_new();
  int64_t v[2] = {n, m};
  KrExprValue out = {0};
  const char *why = NULL;
  KrStatus st = kr_expr_eval_value(text, sizes, v, &out, a, &why);
  if (st != KR_OK) fail_msg("'%s' failed: %s", text, why);
  kr_arena_free(a);
  return out;
}

static int64_t int_at(const char *text, int64_t n) {
  KrExprValue v = value_at(text, n, 3);
  assert_false(v.is_float);
  return v.i;
}

static double float_at(const char *text, int64_t n) {
  KrExprValue v = value_at(text, n, 3);
  assert_true(v.is_float);
  return v.f;
}

/* The reason `text` fails at n (kr_expr_eval, the integer entry, when `integer`), copied out. */
static char *error_at(const char *text, int64_t n, bool integer) {
  KrArena *a = kr_arena_new();
  int64_t v[2] = {n, 3}, iv;
  KrExprValue out;
  const char *why = NULL;
  KrStatus st = integer ? kr_expr_eval(text, sizes, v, &iv, a, &why) : kr_expr_eval_value(text, sizes, v, &out, a, &why);
  assert_int_equal(st, KR_ERR);
  assert_non_null(why);
  char *r = strdup(why);
  kr_arena_free(a);
  return r;
}

static void assert_error(const char *text, int64_t n, bool integer, const char *want) {
  char *why = error_at(text, n, integer);
  if (!strstr(why, want)) fail_msg("'%s': got \"%s\", wanted \"%s\"", text, why, want);
  free(why);
}

static void integers_keep_c_semantics(void **state) {
  (void)state;
  assert_int_equal(int_at("7 / 2", 0), 3);
  assert_int_equal(int_at("-7 / 2", 0), -3);
  assert_int_equal(int_at("-7 % 3", 0), -1);
  assert_int_equal(int_at("1 / n", 4), 0);            /* integer division, as in C */
  assert_int_equal(int_at("cdiv(n, 256)", 257), 2);
  assert_int_equal(int_at("n * m - (n - 1)", 10), 21);
  assert_error("9223372036854775807 + 1", 0, false, "overflow in '+'");
  assert_error("n / (n - 4)", 4, false, "division by zero ('/') at column 3");
}

static void a_float_literal_makes_the_expression_floating(void **state) {
  (void)state;
  assert_true(float_at("1.0 / n", 4) == 0.25);
  assert_true(float_at("0.5 * (n - 1)", 8) == 3.5);
  assert_true(float_at("2e-3 * n", 1000) == 2.0);
  assert_true(float_at(".5 + n", 1) == 1.5);
  assert_true(float_at("-1.5", 0) == -1.5);
  assert_true(float_at("(n + 1) / 2.0", 4) == 2.5);   /* (n + 1) stays an integer, then meets 2.0 */
  assert_int_equal(int_at("(n + 1) / 2", 4), 2);
  assert_error("n % 2.0", 4, false, "'%' takes integers");
  assert_error("1.0 / (n - 4)", 4, false, "division by zero ('/')");
  assert_error("1e300 * 1e300", 0, false, "not a finite number");
}

static void an_integer_is_refused_a_float_value(void **state) {
  (void)state;
  assert_error("n / 2.0", 8, true, "a floating-point value where an integer is needed");
  assert_error("log2(8.0)", 8, true, "a floating-point value");
  int64_t v[2] = {8, 3}, iv = 0;
  const char *why;
  KrArena *a = kr_arena_new();
  assert_int_equal(kr_expr_eval("n / 2", sizes, v, &iv, a, &why), KR_OK);
  assert_int_equal(iv, 4);
  kr_arena_free(a);
}

static void pow_of_integers_is_exact(void **state) {
  (void)state;
  assert_int_equal(int_at("pow(2, n)", 10), 1024);
  assert_int_equal(int_at("pow(-3, 3)", 0), -27);
  assert_int_equal(int_at("pow(n, 0)", 0), 1);         /* 0 to the 0 is 1, as pow says */
  assert_int_equal(int_at("pow(0, n)", 5), 0);
  assert_int_equal(int_at("pow(-1, n)", 7), -1);
  assert_int_equal(int_at("pow(3, 39)", 0), 4052555153018976267LL);   /* past 2^53: no rounding */
  assert_error("pow(2, 63)", 0, false, "overflow in pow(2, 63)");
  assert_error("pow(2, -1)", 0, false, "a negative power of an integer is not one (write pow(2.0, -1))");
  assert_true(float_at("pow(2.0, -1)", 0) == 0.5);
  assert_true(float_at("pow(n, 0.5)", 16) == 4.0);
}

static void log2_of_an_integer_is_its_floor(void **state) {
  (void)state;
  assert_int_equal(int_at("log2(n)", 1), 0);
  assert_int_equal(int_at("log2(n)", 1000), 9);
  assert_int_equal(int_at("log2(n)", 1024), 10);
  assert_int_equal(int_at("log2(9223372036854775807)", 0), 62);
  assert_int_equal(int_at("pow(2, log2(n))", 1000), 512);   /* the power of two at or below n */
  assert_true(float_at("log2(n * 1.0)", 1000) == log2(1000.0));
  assert_error("log2(n)", 0, false, "log2 of 0: it needs a positive value at column 1");
  assert_error("log2(n - 5)", 1, false, "log2 of -4");
  assert_error("log2(-0.5)", 0, false, "log2 of -0.5");
  assert_error("log2(n, 2)", 4, false, "log2(a) takes one argument");
}

static void min_and_max_keep_integers_integer(void **state) {
  (void)state;
  assert_int_equal(int_at("min(n, 256)", 1000), 256);
  assert_int_equal(int_at("max(n, 1)", 0), 1);
  assert_int_equal(int_at("max(-n, -m)", 5), -3);
  assert_true(float_at("min(n, 2.5)", 7) == 2.5);
  assert_true(float_at("max(n, 2.5)", 7) == 7.0);
  assert_error("min(n)", 4, false, "min(a, b) takes two arguments");
  assert_error("cdiv(n, 2.0)", 4, false, "cdiv(a, b) takes integers");
  assert_error("sqrt(n)", 4, false, "unknown function 'sqrt' (known: cdiv, min, max, pow, log2) at column 1");
}

static void zero_sizes_evaluate(void **state) {
  (void)state;
  assert_int_equal(int_at("cdiv(n, 256)", 0), 0);
  assert_int_equal(int_at("n * m", 0), 0);
  assert_true(float_at("1.0 / max(n, 1)", 0) == 1.0);
  assert_error("1 / n", 0, false, "division by zero ('/')");
  assert_error("cdiv(m, n)", 0, false, "division by zero in cdiv");
}

static void an_undefined_name_is_named_with_its_column(void **state) {
  (void)state;
  assert_error("n * k", 4, false, "undefined symbol 'k' at column 5");
  assert_error("1.0 / nn", 4, true, "undefined symbol 'nn' at column 7");
  assert_error("n +", 4, false, "unexpected end at column 4");
  assert_error("(n + 1", 4, false, "missing ')' at column 7");
  assert_error("n $ 1", 4, false, "unexpected '$' at column 3");
}

/* ---- Specs ---------------------------------------------------------------------------------------- */

typedef struct Fx {
  char dir[64];
  KrArena *a;
  KrDiags *d;
  KrSpec *spec;
} Fx;

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Writes k.cu and problem.lua into a fresh folder and loads the spec; `ok` is what the load must
 * return. */
static void fx_load(Fx *f, const char *cu, const char *spec, KrStatus ok) {
  strcpy(f->dir, "/tmp/kr-spec-expr-XXXXXX");
  assert_non_null(mkdtemp(f->dir));
  write_file(f->dir, "k.cu", cu);
  write_file(f->dir, "problem.lua", spec);
  f->a = kr_arena_new();
  f->d = kr_diags_new();
  char path[512];
  snprintf(path, sizeof path, "%s/problem.lua", f->dir);
  f->spec = NULL;
  KrStatus st = kr_spec_load(path, f->a, &f->spec, f->d);
  if (st != ok) {
    for (size_t i = 0; i < f->d->items.len; i++) print_error("%s\n", f->d->items.data[i].message);
    fail_msg("the spec loaded with %d, wanted %d", (int)st, (int)ok);
  }
}

static void fx_free(Fx *f) {
  kr_diags_free(f->d);
  kr_arena_free(f->a);
  for (const char *const *n = (const char *const[]){"k.cu", "problem.lua", NULL}; *n; n++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", f->dir, *n);
    unlink(path);
  }
  rmdir(f->dir);
}

static bool has_error(const KrDiags *d, const char *text) {
  for (size_t i = 0; i < d->items.len; i++)
    if (strstr(d->items.data[i].message, text)) return true;
  return false;
}

static const char *reduce_cu =
  "__global__ void pass(int len, const float *in, float *out) {}\n"
  "__global__ void scale(int n, float inv_n, double centre, __half h, const float *x, float *y) {}\n";

/* A sum in ceil(log2(n)) passes, ping-ponging between two temporaries. */
static const char *reduce_spec =
  "return { source = 'k.cu',\n"
  "  sizes = { n = { bench = 1024, test = { 0, 1, 7 } } },\n"
  "  buffers = { { name = 'x', count = 'n', role = 'input' },\n"
  "              { name = 'a', count = 'cdiv(n, 2)', role = 'temp' },\n"
  "              { name = 'b', count = 'cdiv(n, 2)', role = 'temp' },\n"
  "              { name = 'y', count = 'n', role = 'output' } },\n"
  "  launches = function(s)\n"
  "    local l, src, len = {}, 'x', s.n\n"
  "    if len == 5 then error('five is not planned') end\n"
  "    while len > 1 do\n"
  "      local m = (len + 1) // 2\n"
  "      local dst = #l % 2 == 0 and 'a' or 'b'\n"
  "      l[#l + 1] = { kernel = 'pass', grid = (m + 255) // 256, block = 256, args = { len, src, dst } }\n"
  "      src, len = dst, m\n"
  "    end\n"
  "    l[#l + 1] = { kernel = 'scale', grid = 'cdiv(n, 128)', block = 128,\n"
  "                  args = { 'n', '1.0 / max(n, 1)', '0.5 * (n - 1)', 'pow(2, log2(max(n, 1)))', { buf = 'x', offset = 'min(n, 1)' }, 'y' } }\n"
  "    return l\n"
  "  end }\n";

static void a_launches_function_gives_each_case_its_list(void **state) {
  (void)state;
  Fx f;
  fx_load(&f, reduce_cu, reduce_spec, KR_OK);
  assert_non_null(f.spec->text);
  assert_int_equal(f.spec->launches.len, 11);   /* ten passes for 1024, then scale */
  const KrLaunchList *l = NULL;
  int64_t bench[1] = {1024}, seven[1] = {7}, zero[1] = {0};
  assert_int_equal(kr_spec_launches(f.spec, bench, f.a, &l, f.d), KR_OK);
  assert_ptr_equal(l, &f.spec->launches);
  assert_int_equal(kr_spec_launches(f.spec, seven, f.a, &l, f.d), KR_OK);
  assert_int_equal(l->len, 4);                  /* 7 -> 4 -> 2 -> 1, then scale */
  assert_string_equal(l->data[0].args.data[1].text, "x");
  assert_string_equal(l->data[1].args.data[1].text, "a");
  assert_string_equal(l->data[2].args.data[2].text, "a");
  assert_string_equal(l->data[3].kernel, "scale");
  assert_int_equal(kr_spec_launches(f.spec, zero, f.a, &l, f.d), KR_OK);
  assert_int_equal(l->len, 1);
  /* A size the load never saw: the function's error names the sizes and the spec's line. */
  int64_t five[1] = {5};
  assert_int_equal(kr_spec_launches(f.spec, five, f.a, &l, f.d), KR_ERR);
  assert_true(has_error(f.d, "launches function at n=5: five is not planned"));
  assert_int_equal(f.d->items.data[f.d->items.len - 1].line, 9);
  fx_free(&f);
}

static void packing_follows_the_cases_list(void **state) {
  (void)state;
  Fx f;
  fx_load(&f, reduce_cu, reduce_spec, KR_OK);
  KrSide side = {.label = "reference", .path = f.spec->source, .text = reduce_cu, .len = strlen(reduce_cu)};
  KrLaunchChange none = {0};
  for (size_t i = 0; i < f.spec->launches.len; i++) kr_vec_push(f.a, &side.changes, none);
  assert_int_equal(kr__side_load(&side, f.d), KR_OK);
  int64_t seven[1] = {7};
  KrEnv e = {.spec = f.spec, .sizes = seven};
  KrPBuf b[4] = {{0}};
  assert_null(kr__bufs_alloc(f.spec, &e, b, f.a));
  KrCudaLaunch *l;
  size_t nl = 0;
  assert_null(kr__pack(&side, f.spec, &e, b, f.a, &l, &nl));
  assert_int_equal(nl, 4);
  assert_int_equal(*(int32_t *)l[0].args[0], 7);
  assert_ptr_equal(*(void **)l[1].args[2], b[2].dev);   /* the second pass writes b */
  assert_int_equal(*(int32_t *)l[2].args[0], 2);
  /* scale: float 1/7, double 3, half 4 (pow(2, log2(7))), x one element in. */
  assert_true(*(float *)l[3].args[1] == (float)(1.0 / 7));
  assert_true(*(double *)l[3].args[2] == 3.0);
  assert_int_equal(*(uint16_t *)l[3].args[3], 0x4400);
  assert_ptr_equal(*(void **)l[3].args[4], (char *)b[0].dev + 4);
  assert_int_equal(l[3].arg_buffer[4], 0);
  KrCudaBuffer cb[4];
  unsigned long long dev[4] = {0x10000, 0x20000, 0x30000, 0x40000}, slots[6];
  void *params[6];
  char err[256];
  for (int i = 0; i < 4; i++) cb[i] = (KrCudaBuffer){b[i].spec->name, b[i].dev, b[i].bytes};
  assert_true(kr_cuda_args_translate(&l[3], cb, 4, dev, slots, params, err, sizeof err));
  assert_int_equal(slots[4], 0x10004);                 /* the GPU gets the device address plus 4 bytes */
  kr__bufs_free(b, 4);
  kr__side_free(&side);
  fx_free(&f);
}

/* In a function's list at other sizes, a launch takes the launch change (and the workspace) of the
 * benchmark list's first launch of its kernel: every pass of the reduction gets pass's workspace,
 * and scale, which the change drops, is left out. */
static void a_cases_launches_take_their_kernels_change(void **state) {
  (void)state;
  static const char *cu =
    "__global__ void pass(int len, const float *in, float *out, float *workspace) {}\n"
    "__global__ void scale(int n, float inv_n, double centre, __half h, const float *x, float *y) {}\n";
  Fx f;
  fx_load(&f, reduce_cu, reduce_spec, KR_OK);
  KrSide side = {.label = "candidate", .path = f.spec->source, .text = cu, .len = strlen(cu)};
  KrLaunchChange with_ws = {.workspace = "param.len * 4"}, dropped = {.drops = "pass"};
  for (size_t i = 0; i + 1 < f.spec->launches.len; i++) kr_vec_push(f.a, &side.changes, with_ws);
  kr_vec_push(f.a, &side.changes, dropped);
  KrWorkspace *ws = kr_arena_alloc(f.a, (f.spec->launches.len + 1) * sizeof *ws);
  side.ws = ws;
  assert_int_equal(kr__side_load(&side, f.d), KR_OK);
  int64_t seven[1] = {7};
  KrEnv e = {.spec = f.spec, .sizes = seven};
  KrPBuf b[4] = {{0}};
  assert_null(kr__bufs_alloc(f.spec, &e, b, f.a));
  assert_null(kr__workspaces_ready(&side, f.spec, &e, NULL, f.a));
  assert_non_null(ws[0].host);
  assert_int_equal(ws[0].bytes, 28);                   /* the largest pass asks for 7 * 4 */
  for (size_t i = 1; i < f.spec->launches.len; i++) assert_null(ws[i].host);
  KrCudaLaunch *l;
  size_t nl = 0;
  assert_null(kr__pack(&side, f.spec, &e, b, f.a, &l, &nl));
  assert_int_equal(nl, 3);                             /* three passes; scale dropped */
  for (size_t i = 0; i < nl; i++) {
    assert_string_equal(l[i].kernel, "pass");
    assert_int_equal(l[i].nargs, 4);
    assert_ptr_equal(*(void **)l[i].args[3], ws[0].host);
    assert_int_equal(l[i].arg_buffer[3], 4);           /* the first workspace, after the 4 buffers */
  }
  KrCudaBuffer cb[16];
  assert_int_equal(kr__workspace_buffers(&side, f.spec, cb), 1);
  assert_int_equal(kr__workspaces_bytes(&side, f.spec, &e, f.a), 256);
  /* At the benchmark sizes each launch has its own, as in a list. */
  int64_t bench[1] = {1024};
  e.sizes = bench;
  assert_null(kr__workspaces_ready(&side, f.spec, &e, NULL, f.a));
  assert_int_equal(kr__workspace_buffers(&side, f.spec, cb), 10);
  assert_int_equal(ws[1].bytes, 512 * 4);
  kr__bufs_free(b, 4);
  kr__side_free(&side);
  fx_free(&f);
}

static void a_size_of_zero_skips_the_empty_grid(void **state) {
  (void)state;
  Fx f;
  fx_load(&f, reduce_cu, reduce_spec, KR_OK);
  KrSide side = {.label = "reference", .path = f.spec->source, .text = reduce_cu, .len = strlen(reduce_cu)};
  KrLaunchChange none = {0};
  for (size_t i = 0; i < f.spec->launches.len; i++) kr_vec_push(f.a, &side.changes, none);
  assert_int_equal(kr__side_load(&side, f.d), KR_OK);
  int64_t zero[1] = {0};
  KrEnv e = {.spec = f.spec, .sizes = zero};
  uint64_t total = 1, each[4];
  assert_null(kr__bufs_bytes(f.spec, &e, &total, each, f.a));
  assert_int_equal(total, 0);
  KrPBuf b[4] = {{0}};
  assert_null(kr__bufs_alloc(f.spec, &e, b, f.a));
  assert_non_null(b[0].dev);                           /* 0 elements: still a pointer */
  assert_int_equal(b[0].count, 0);
  assert_null(kr__bufs_prepare(f.spec, &e, b, 1, f.a));
  KrCudaLaunch *l;
  size_t nl = 7;
  assert_null(kr__pack(&side, f.spec, &e, b, f.a, &l, &nl));
  assert_int_equal(nl, 0);                             /* scale's grid is cdiv(0, 128) = 0 */
  assert_null(kr__run_side(&side, f.spec, &e, b, false, 1, 5, f.a));   /* nothing to run, and no failure */
  kr__bufs_free(b, 4);
  kr__side_free(&side);
  fx_free(&f);
}

static void bad_arguments_are_refused_at_load(void **state) {
  (void)state;
  static const struct { const char *args, *want; } cases[] = {
    {"'n', '1.0 / n', 0.5, 1, 'x', 'y'", NULL},
    {"'n / 2.0', '1.0 / n', 0.5, 1, 'x', 'y'", "argument 1: 'n / 2.0' is a floating-point expression, but parameter 'n' is 'int'"},
    {"'n', '1.0 / n', 0.5, 1, '2.0 * n', 'y'", "argument 5 '2.0 * n' is an expression, not a buffer name, but parameter 'x'"},
    {"'n', 'x', 0.5, 1, 'x', 'y'", "argument 2 'x' is a buffer, but parameter 'inv_n' is 'float', not a pointer"},
    {"'n', '1.0 / q', 0.5, 1, 'x', 'y'", "argument 2: '1.0 / q': undefined symbol 'q' at column 7"},
    {"'n', 'alpha', 0.5, 1, 'x', 'y'", "argument 2 'alpha' names no buffer or size symbol (buffers: x, y; sizes: n)"},
    {"'n', '1.0 / n', 0.5, 1, 'xx', 'y'", "argument 5 'xx' names no buffer or size symbol; did you mean 'x'?"},
    {"'n', '1.0 / nn', 0.5, 1, 'x', 'y'", "undefined symbol 'nn' at column 7; did you mean 'n'? (symbols: n)"},
    {"'n', '1.0 / y', 0.5, 1, 'x', 'y'", "'y' is a buffer, which is passed as an argument of its own, not inside an expression"},
    {"'n', '1.0 / n', 0.5, 1, { buf = 'x', offset = 'n' }, 'y'", NULL},
    {"'n', '1.0 / n', 0.5, 1, { buf = 'x', offset = 'n + 1' }, 'y'", "offset 'n + 1' is 2 at test case 1 (n=1), past the 1 elements of buffer 'x'"},
    {"'n', '1.0 / n', 0.5, 1, { buf = 'x', offset = '-1' }, 'y'", "offset: '-1' is -1 at test case 1 (n=1); it must not be negative"},
    {"'n', '1.0 / n', 0.5, 1, { buf = 'z' }, 'y'", "buf 'z' names no buffer (buffers: x, y)"},
    {"'n', '1.0 / n', 0.5, 1, { offset = 1 }, 'y'", "args[5]: 'buf' is missing"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char spec[1024];
    snprintf(spec, sizeof spec,
             "return { source = 'k.cu', sizes = { n = { bench = 1024, test = { 1, 8 } } },\n"
             "  buffers = { { name = 'x', count = 'n', role = 'input' }, { name = 'y', count = 'n', role = 'output' } },\n"
             "  launches = { { kernel = 'scale', grid = 'cdiv(n, 128)', block = 128, args = { %s } } } }\n",
             cases[i].args);
    Fx f;
    fx_load(&f, reduce_cu, spec, cases[i].want ? KR_ERR : KR_OK);
    if (cases[i].want && !has_error(f.d, cases[i].want)) {
      for (size_t k = 0; k < f.d->items.len; k++) print_error("%s\n", f.d->items.data[k].message);
      fail_msg("args { %s }: no error saying \"%s\"", cases[i].args, cases[i].want);
    }
    fx_free(&f);
  }
}

static void zero_is_a_size_and_negatives_are_not(void **state) {
  (void)state;
  static const struct { const char *test, *count, *grid, *want; } cases[] = {
    {"0, 3", "n", "cdiv(n, 128)", NULL},
    {"0, -3", "n", "cdiv(n, 128)", "sizes.n: test[2] must be an integer, 0 or more, got -3"},
    {"1, 3", "n - 2", "cdiv(n, 128)", "buffers[1] 'x': count: 'n - 2' is -1 at test case 1 (n=1); it must not be negative"},
    {"0, 3", "n", "n - 1", "grid: 'n - 1' is -1 at test case 1 (n=0); it must not be negative"},
    {"0, 3", "n", "n / 2048", "grid: 'n / 2048' is 0 at the benchmark sizes (n=1024); it must be positive"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char spec[1024];
    snprintf(spec, sizeof spec,
             "return { source = 'k.cu', sizes = { n = { bench = 1024, test = { %s } } },\n"
             "  buffers = { { name = 'x', count = '%s', role = 'input' }, { name = 'y', count = 'n', role = 'output' } },\n"
             "  launches = { { kernel = 'scale', grid = '%s', block = 128, args = { 'n', 1, 1, 1, 'x', 'y' } } } }\n",
             cases[i].test, cases[i].count, cases[i].grid);
    Fx f;
    fx_load(&f, reduce_cu, spec, cases[i].want ? KR_ERR : KR_OK);
    if (cases[i].want && !has_error(f.d, cases[i].want)) {
      for (size_t k = 0; k < f.d->items.len; k++) print_error("%s\n", f.d->items.data[k].message);
      fail_msg("case %zu: no error saying \"%s\"", i + 1, cases[i].want);
    }
    fx_free(&f);
  }
}

static void a_bad_launches_function_is_reported_with_its_sizes(void **state) {
  (void)state;
  static const struct { const char *body, *want; uint32_t line; } cases[] = {
    {"error('no plan')", "launches function at the benchmark sizes (n=1024): no plan", 2},
    {"if s.n == 3 then error('no plan for ' .. s.n) end\n"
     "  return { { kernel = 'pass', grid = 1, block = 32, args = { 1, 'x', 'y' } } }",
     "launches function at test case 2 (n=3): no plan for 3", 2},
    {"return 'a list'", "the launches function returned the string \"a list\", not a list of launches", 1},
    {"if s.n == 3 then return {} end\n"
     "  return { { kernel = 'pass', grid = 1, block = 32, args = { 1, 'x', 'y' } } }", NULL, 0},
    {"return {}", "it returned no launches; at the benchmark sizes something must run", 0},
    {"return { { kernel = 'pass', grid = 1, block = 32, args = { 1, 'x', 'y' }, stream = 2 } }",
     "launches[1]: unknown field 'stream'", 0},
    {"if s.n == 3 then return { { kernel = 'scale', grid = 1, block = 32, args = { 'n', 1, 1, 1, 'x', 'y' } } } end\n"
     "  return { { kernel = 'pass', grid = 1, block = 32, args = { 1, 'x', 'y' } } }",
     "launches[1] runs 'scale', which the list at the benchmark sizes does not launch", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char spec[1024];
    snprintf(spec, sizeof spec,
             "return { source = 'k.cu', sizes = { n = { bench = 1024, test = { 0, 3 } } },\n"
             "  buffers = { { name = 'x', count = 'n', role = 'input' }, { name = 'y', count = 'n', role = 'output' } },\n"
             "  launches = function(s)\n  %s\n  end }\n",
             cases[i].body);
    Fx f;
    fx_load(&f, reduce_cu, spec, cases[i].want ? KR_ERR : KR_OK);
    if (cases[i].want) {
      bool found = false;
      for (size_t k = 0; k < f.d->items.len && !found; k++) {
        const KrDiag *g = &f.d->items.data[k];
        found = strstr(g->message, cases[i].want) && strstr(g->path, "problem.lua") &&
                (!cases[i].line || g->line == cases[i].line + 2);
      }
      if (!found) {
        for (size_t k = 0; k < f.d->items.len; k++)
          print_error("%s:%u: %s\n", f.d->items.data[k].path, f.d->items.data[k].line, f.d->items.data[k].message);
        fail_msg("case %zu: no error saying \"%s\" at line %u", i + 1, cases[i].want, cases[i].line + 2);
      }
    }
    fx_free(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(integers_keep_c_semantics),
    cmocka_unit_test(a_float_literal_makes_the_expression_floating),
    cmocka_unit_test(an_integer_is_refused_a_float_value),
    cmocka_unit_test(pow_of_integers_is_exact),
    cmocka_unit_test(log2_of_an_integer_is_its_floor),
    cmocka_unit_test(min_and_max_keep_integers_integer),
    cmocka_unit_test(zero_sizes_evaluate),
    cmocka_unit_test(an_undefined_name_is_named_with_its_column),
    cmocka_unit_test(a_launches_function_gives_each_case_its_list),
    cmocka_unit_test(packing_follows_the_cases_list),
    cmocka_unit_test(a_cases_launches_take_their_kernels_change),
    cmocka_unit_test(a_size_of_zero_skips_the_empty_grid),
    cmocka_unit_test(bad_arguments_are_refused_at_load),
    cmocka_unit_test(zero_is_a_size_and_negatives_are_not),
    cmocka_unit_test(a_bad_launches_function_is_reported_with_its_sizes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
