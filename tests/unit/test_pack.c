/* tests/unit/test_pack.c: argument packing (runtime/prun.c): each spec argument becomes the bytes
 * of the kernel parameter's type (int, float, double, half, long long, template parameters),
 * buffers become pointers tied to their buffer, and launch dimensions are evaluated; a pass's
 * trailing ints and workspace follow. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/fill.h"
#include "runtime/prun.h"

static const char *kernel_src =
  "#include <cuda_fp16.h>\n"
  "template <typename T>\n"
  "__global__ void k(int n, float a, double d, __half h, long long big, T t, float *x) {}\n";

static const char *spec_src =
  "return { source = 'k.cu',\n"
  "  sizes = { n = { bench = 1000, test = { 7 } } },\n"
  "  buffers = { { name = 'x', count = 'n', role = 'output' } },\n"
  "  launches = { { kernel = 'k<double>', grid = { 'cdiv(n, 4)', 2 }, block = 32, shmem = 'n * 4',\n"
  "                 args = { 'n', 2.5, 3.25, 1.5, 'n * 1000000000', 0.125, 'x' } } } }\n";

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void arguments_take_the_parameter_types(void **state) {
  (void)state;
  char dir[] = "/tmp/kr-pack-XXXXXX";
  assert_non_null(mkdtemp(dir));
  write_file(dir, "k.cu", kernel_src);
  write_file(dir, "problem.lua", spec_src);
  char path[512];
  snprintf(path, sizeof path, "%s/problem.lua", dir);
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSpec *spec;
  assert_int_equal(kr_spec_load(path, a, &spec, d), KR_OK);
  KrSide side = {.label = "reference", .path = spec->source, .text = kernel_src,
                 .len = strlen(kernel_src)};
  KrLaunchChange none = {0};
  kr_vec_push(a, &side.changes, none);
  assert_int_equal(kr__side_load(&side, d), KR_OK);
  int64_t sizes[1] = {7};
  KrEnv e = {.spec = spec, .sizes = sizes};
  KrPBuf b[1] = {{0}};
  assert_null(kr__bufs_alloc(spec, &e, b, a));
  KrCudaLaunch *l;
  size_t nl = 0;
  assert_null(kr__pack(&side, spec, &e, b, a, &l, &nl));
  assert_int_equal(l[0].grid.x, 2);
  assert_int_equal(l[0].grid.y, 2);
  assert_int_equal(l[0].block.x, 32);
  assert_int_equal(l[0].shmem, 28);
  assert_int_equal(l[0].nargs, 7);
  assert_int_equal(*(int32_t *)l[0].args[0], 7);
  assert_true(*(float *)l[0].args[1] == 2.5f);
  assert_true(*(double *)l[0].args[2] == 3.25);
  assert_int_equal(*(uint16_t *)l[0].args[3], kr_f32_to_f16(1.5f));
  assert_int_equal(*(int64_t *)l[0].args[4], 7000000000LL);   /* no 32-bit truncation */
  assert_true(*(double *)l[0].args[5] == 0.125);               /* T bound to double */
  assert_ptr_equal(*(void **)l[0].args[6], b[0].dev);
  assert_int_equal(l[0].arg_buffer[6], 0);
  assert_int_equal(l[0].arg_buffer[0], -1);
  kr__bufs_free(b, 1);
  kr__side_free(&side);
  kr_diags_free(d);
  kr_arena_free(a);
  for (const char *const *f = (const char *const[]){"k.cu", "problem.lua", NULL}; *f; f++) {
    snprintf(path, sizeof path, "%s/%s", dir, *f);
    unlink(path);
  }
  rmdir(dir);
}

/* A launch change's workspace: its size over param.NAME, zeroed at every run's start (a counter
 * a kernel left behind is gone), passed as the trailing argument tied to buffer nb + 0, which the
 * GPU's argument translation accepts with the side's workspace buffers after the spec's. */
static const char *ws_original_src = "__global__ void w(int n, float *x) {}\n";
static const char *ws_kernel_src =
  "__global__ void w(int n, float *x, float *workspace = nullptr) {}\n";

static const char *ws_spec_src =
  "return { source = 'w.cu',\n"
  "  sizes = { n = { bench = 1000, test = { 7 } } },\n"
  "  buffers = { { name = 'x', count = 'n', role = 'output' } },\n"
  "  launches = { { kernel = 'w', grid = 1, block = 32, args = { 'n + 1', 'x' } } } }\n";

static void a_workspace_is_a_zeroed_trailing_buffer(void **state) {
  (void)state;
  char dir[] = "/tmp/kr-pack-XXXXXX";
  assert_non_null(mkdtemp(dir));
  write_file(dir, "w.cu", ws_original_src);
  write_file(dir, "problem.lua", ws_spec_src);
  char path[512];
  snprintf(path, sizeof path, "%s/problem.lua", dir);
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSpec *spec;
  assert_int_equal(kr_spec_load(path, a, &spec, d), KR_OK);
  KrSide side = {.label = "candidate", .path = spec->source, .text = ws_kernel_src,
                 .len = strlen(ws_kernel_src)};
  KrLaunchChange c = {.workspace = "param.n * 16 + 4"};
  kr_vec_push(a, &side.changes, c);
  KrWorkspace ws[2] = {{0}};
  side.ws = ws;
  assert_int_equal(kr__side_load(&side, d), KR_OK);
  int64_t sizes[1] = {7};
  KrEnv e = {.spec = spec, .sizes = sizes};
  KrPBuf b[1] = {{0}};
  assert_null(kr__bufs_alloc(spec, &e, b, a));
  assert_int_equal(kr__workspaces_bytes(&side, spec, &e, a), 256);   /* 132 bytes, pool-aligned */
  assert_null(kr__workspaces_ready(&side, spec, &e, NULL, a));
  assert_non_null(ws[0].host);
  assert_int_equal(ws[0].bytes, 8 * 16 + 4);
  void *first = ws[0].host;
  ((unsigned char *)ws[0].host)[ws[0].bytes - 1] = 7;   /* a counter left non-zero */
  assert_null(kr__workspaces_ready(&side, spec, &e, NULL, a));
  assert_ptr_equal(ws[0].host, first);                  /* the same size: kept */
  assert_int_equal(((unsigned char *)ws[0].host)[ws[0].bytes - 1], 0);
  KrCudaLaunch *l;
  size_t nl = 0;
  assert_null(kr__pack(&side, spec, &e, b, a, &l, &nl));
  assert_int_equal(l[0].nargs, 3);
  assert_ptr_equal(*(void **)l[0].args[2], ws[0].host);
  assert_int_equal(l[0].arg_buffer[2], 1);
  KrCudaBuffer cb[3] = {{"x", b[0].dev, b[0].bytes}};
  assert_int_equal(kr__workspace_buffers(&side, spec, cb + 1), 1);
  assert_ptr_equal(cb[1].host, ws[0].host);
  unsigned long long dev[2] = {0x10000, 0x20000}, slots[3];
  void *params[3];
  char err[256];
  assert_true(kr_cuda_args_translate(&l[0], cb, 2, dev, slots, params, err, sizeof err));
  assert_int_equal(slots[2], 0x20000);
  /* Without the workspace the kernel has one parameter more than the spec passes. */
  side.changes.data[0].workspace = NULL;
  const char *why = kr__pack(&side, spec, &e, b, a, &l, &nl);
  assert_non_null(why);
  assert_non_null(strstr(why, "takes 3 parameters, the spec passes 2"));
  side.changes.data[0].workspace = c.workspace;
  kr__bufs_free(b, 1);
  kr__side_free(&side);
  kr_diags_free(d);
  kr_arena_free(a);
  for (const char *const *f = (const char *const[]){"w.cu", "problem.lua", NULL}; *f; f++) {
    snprintf(path, sizeof path, "%s/%s", dir, *f);
    unlink(path);
  }
  rmdir(dir);
}

/* A launch change's trailing int arguments: values of the original launch (the old grid.x and
 * block.x, before the change's own grid and block replace them), after the spec's arguments and
 * before a workspace. */
static const char *args_kernel_src =
  "__global__ void w(int n, float *x, int rows = 0, int block = 0, float *workspace = nullptr) {}\n";

static const char *args_spec_src =
  "return { source = 'w.cu',\n"
  "  sizes = { n = { bench = 1000, test = { 7 } } },\n"
  "  buffers = { { name = 'x', count = 'n', role = 'output' } },\n"
  "  launches = { { kernel = 'w', grid = 'cdiv(n, 2)', block = 32, args = { 'n', 'x' } } } }\n";

static void launch_values_are_trailing_ints_before_the_workspace(void **state) {
  (void)state;
  char dir[] = "/tmp/kr-pack-XXXXXX";
  assert_non_null(mkdtemp(dir));
  write_file(dir, "w.cu", ws_original_src);
  write_file(dir, "problem.lua", args_spec_src);
  char path[512];
  snprintf(path, sizeof path, "%s/problem.lua", dir);
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSpec *spec;
  assert_int_equal(kr_spec_load(path, a, &spec, d), KR_OK);
  KrSide side = {.label = "candidate", .path = spec->source, .text = args_kernel_src,
                 .len = strlen(args_kernel_src)};
  KrLaunchChange c = {.grid = "cdiv(grid.x, 8)", .block = "256", .workspace = "64", .args = "grid.x;  block.x * 2 "};
  kr_vec_push(a, &side.changes, c);
  KrWorkspace ws[2] = {{0}};
  side.ws = ws;
  assert_int_equal(kr__side_load(&side, d), KR_OK);
  int64_t sizes[1] = {7};
  KrEnv e = {.spec = spec, .sizes = sizes};
  KrPBuf b[1] = {{0}};
  assert_null(kr__bufs_alloc(spec, &e, b, a));
  assert_null(kr__workspaces_ready(&side, spec, &e, NULL, a));
  KrCudaLaunch *l;
  size_t nl = 0;
  assert_null(kr__pack(&side, spec, &e, b, a, &l, &nl));
  assert_int_equal(l[0].grid.x, 1);
  assert_int_equal(l[0].block.x, 256);
  assert_int_equal(l[0].nargs, 5);
  assert_int_equal(*(int32_t *)l[0].args[2], 4);    /* the old grid.x, cdiv(7, 2) */
  assert_int_equal(*(int32_t *)l[0].args[3], 64);   /* the old block.x, times 2 */
  assert_int_equal(l[0].arg_buffer[2], -1);
  assert_ptr_equal(*(void **)l[0].args[4], ws[0].host);
  assert_int_equal(l[0].arg_buffer[4], 1);
  /* One argument fewer than the kernel's trailing ints: refused, counted. */
  side.changes.data[0].args = "grid.x";
  const char *why = kr__pack(&side, spec, &e, b, a, &l, &nl);
  assert_non_null(why);
  assert_non_null(strstr(why, "takes 5 parameters, the spec passes 2 and a pass's 1 trailing int and a pass's workspace"));
  /* An argument that does not evaluate names itself. */
  side.changes.data[0].args = "grid.x; nosuch";
  why = kr__pack(&side, spec, &e, b, a, &l, &nl);
  assert_non_null(why);
  assert_non_null(strstr(why, "pass launch change argument 'nosuch'"));
  kr__bufs_free(b, 1);
  kr__side_free(&side);
  kr_diags_free(d);
  kr_arena_free(a);
  for (const char *const *f = (const char *const[]){"w.cu", "problem.lua", NULL}; *f; f++) {
    snprintf(path, sizeof path, "%s/%s", dir, *f);
    unlink(path);
  }
  rmdir(dir);
}

/* A launch the side drops (fuse: another kernel does its work) is left out of the packed launches,
 * the others keep their order. */
static void a_dropped_launch_is_left_out(void **state) {
  (void)state;
  static const char *src = "__global__ void a(int n, float *x) {}\n__global__ void b(int n, float *x) {}\n";
  static const char *spec_text =
    "return { source = 'k.cu',\n"
    "  sizes = { n = { bench = 1000, test = { 7 } } },\n"
    "  buffers = { { name = 'x', count = 'n', role = 'output' } },\n"
    "  launches = { { kernel = 'a', grid = 1, block = 32, args = { 'n', 'x' } },\n"
    "               { kernel = 'b', grid = 2, block = 32, args = { 'n', 'x' } },\n"
    "               { kernel = 'a', grid = 3, block = 32, args = { 'n', 'x' } } } }\n";
  char dir[] = "/tmp/kr-pack-XXXXXX";
  assert_non_null(mkdtemp(dir));
  write_file(dir, "k.cu", src);
  write_file(dir, "problem.lua", spec_text);
  char path[512];
  snprintf(path, sizeof path, "%s/problem.lua", dir);
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSpec *spec;
  assert_int_equal(kr_spec_load(path, a, &spec, d), KR_OK);
  KrSide side = {.label = "candidate", .path = spec->source, .text = src, .len = strlen(src)};
  KrLaunchChange none = {0}, dropped = {.drops = "a"};
  kr_vec_push(a, &side.changes, none);
  kr_vec_push(a, &side.changes, dropped);
  kr_vec_push(a, &side.changes, none);
  assert_int_equal(kr__side_load(&side, d), KR_OK);
  int64_t sizes[1] = {7};
  KrEnv e = {.spec = spec, .sizes = sizes};
  KrPBuf b[1] = {{0}};
  assert_null(kr__bufs_alloc(spec, &e, b, a));
  KrCudaLaunch *l;
  size_t nl = 0;
  assert_null(kr__pack(&side, spec, &e, b, a, &l, &nl));
  assert_int_equal(nl, 2);
  assert_string_equal(l[0].kernel, "a");
  assert_int_equal(l[0].grid.x, 1);
  assert_string_equal(l[1].kernel, "a");
  assert_int_equal(l[1].grid.x, 3);
  side.changes.data[1].drops = NULL;
  assert_null(kr__pack(&side, spec, &e, b, a, &l, &nl));
  assert_int_equal(nl, 3);
  assert_string_equal(l[1].kernel, "b");
  kr__bufs_free(b, 1);
  kr__side_free(&side);
  kr_diags_free(d);
  kr_arena_free(a);
  for (const char *const *f = (const char *const[]){"k.cu", "problem.lua", NULL}; *f; f++) {
    snprintf(path, sizeof path, "%s/%s", dir, *f);
    unlink(path);
  }
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(arguments_take_the_parameter_types),
    cmocka_unit_test(a_dropped_launch_is_left_out),
    cmocka_unit_test(a_workspace_is_a_zeroed_trailing_buffer),
    cmocka_unit_test(launch_values_are_trailing_ints_before_the_workspace),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
