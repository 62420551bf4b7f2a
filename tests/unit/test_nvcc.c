/* tests/unit/test_nvcc.c: the nvcc driver (backend/nvcc.h) and the tool runner under it
 * (base/proc.h). The parsers are checked against real nvcc 13.0 output captured in
 * tests/fixtures/nvcc/ (capture.sh regenerates it); the driver against the real nvcc when there is
 * one (the tests that need it skip otherwise) and against a fake nvcc script for time limits and
 * silent failures. Each compiling test gets a fresh cache folder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/nvcc.h"
#include "base/proc.h"

#define FIXTURES KR_SOURCE_DIR "/tests/fixtures/nvcc"
#define CAPTURE "/tmp/kr-nvcc-capture"   /* where capture.sh compiled the fixtures */

/* ---- Helpers --------------------------------------------------------------------------------------- */

static char *fixture(KrArena *a, const char *name, size_t *len) {
  char *text;
  size_t n;
  KrDiags *d = kr_diags_new();
  KrStatus st = kr_file_read(kr_arena_printf(a, "%s/%s", FIXTURES, name), a, &text, &n, d);
  kr_diags_free(d);
  assert_int_equal(st, KR_OK);
  if (len) *len = n;
  return text;
}

static const KrKernelResources *kernel(const KrCubin *c, const char *name) {
  for (size_t i = 0; i < c->kernels.len; i++)
    if (strcmp(c->kernels.data[i].name, name) == 0) return &c->kernels.data[i];
  fail_msg("no kernel '%s' in the report", name);
  return NULL;
}

static void check(const KrKernelResources *k, int regs, int bars, int stack, int st, int ld, int smem,
                  int cmem) {
  assert_int_equal(k->registers, regs);
  assert_int_equal(k->barriers, bars);
  assert_int_equal(k->stack_frame, stack);
  assert_int_equal(k->spill_stores, st);
  assert_int_equal(k->spill_loads, ld);
  assert_int_equal(k->smem, smem);
  assert_int_equal(k->cmem, cmem);
}

/* Parses a fixture's errors as if the user's file were `user_path` holding the fixture's .cu. */
static KrDiags *errors_of(KrArena *a, const char *cu, const char *log, const char *user_path) {
  size_t len;
  char *text = fixture(a, cu, &len);
  KrSource src;
  KrDiags *d = kr_diags_new();
  assert_int_equal(kr_source_from_text(&src, user_path, text, len, a, d), KR_OK);
  kr_nvcc_parse_errors(fixture(a, log, NULL), kr_arena_printf(a, "%s/%s", CAPTURE, cu), &src, NULL, d);
  return d;
}

static void check_diag(const KrDiag *x, KrSeverity sev, const char *path, uint32_t line, uint32_t col,
                       const char *message) {
  assert_int_equal(x->severity, sev);
  if (path) assert_string_equal(x->path, path);
  assert_int_equal(x->line, line);
  assert_int_equal(x->col, col);
  if (!strstr(x->message, message)) fail_msg("'%s' does not contain '%s'", x->message, message);
}

static char *diag_text(const KrDiags *d) {
  KrBuf b = {0};
  kr_diags_format(d, &b);
  return b.data ? kr_buf_steal(&b) : strdup("");
}

static bool have_nvcc(void) {
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *p;
  bool ok = kr_nvcc_find(&p, a, d) == KR_OK;
  kr_diags_free(d);
  kr_arena_free(a);
  return ok;
}

typedef struct Fix {
  KrArena *a;
  KrDiags *d;
  char cache[64];
  KrNvccOptions o;
} Fix;

static int fix_setup(void **state) {
  Fix *f = calloc(1, sizeof *f);
  f->a = kr_arena_new();
  f->d = kr_diags_new();
  strcpy(f->cache, "/tmp/kr-test-nvcc.XXXXXX");
  if (!mkdtemp(f->cache)) return -1;
  f->o.cache_dir = f->cache;
  *state = f;
  return 0;
}

static int fix_teardown(void **state) {
  Fix *f = *state;
  kr_dir_remove(f->cache);
  kr_diags_free(f->d);
  kr_arena_free(f->a);
  free(f);
  return 0;
}

static KrStatus compile_text(Fix *f, const char *path, const char *text, KrCubin *out) {
  return kr_nvcc_compile(path, text, strlen(text), &f->o, f->a, out, f->d);
}

/* resources.cu with a comment that makes its text (and so its cache key) unique to this run. */
static char *unique_source(Fix *f, const char *tag) {
  return kr_arena_printf(f->a, "%s// %s %ld %s\n", fixture(f->a, "resources.cu", NULL), tag,
                         (long)getpid(), f->cache);
}

/* Sets an environment variable, returning its old value (malloc'd, or NULL) for restore_env. */
static char *set_env(const char *name, const char *value) {
  const char *old = getenv(name);
  char *saved = old ? strdup(old) : NULL;
  setenv(name, value, 1);
  return saved;
}

static void restore_env(const char *name, char *saved) {
  if (saved) setenv(name, saved, 1);
  else unsetenv(name);
  free(saved);
}

#define NEED_NVCC() \
  do {              \
    if (!have_nvcc()) skip(); \
  } while (0)

/* ---- ptxas -v reports ------------------------------------------------------------------------------ */

static void ptxas_report_of_sm90_lists_each_entry_with_its_resources(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrCubin c = {0};
  assert_int_equal(kr_ptxas_parse(fixture(a, "resources.sm_90.log", NULL), a, &c), KR_OK);
  assert_int_equal(c.kernels.len, 5);  /* slow_sum is a device function: not an entry */
  assert_string_equal(c.kernels.data[0].name, "_ZN2ns9uses_callEPKfPfi");
  check(kernel(&c, "_ZN2ns9uses_callEPKfPfi"), 47, 0, 0, 0, 0, 0, 0);
  check(kernel(&c, "_Z6conv2diiiiPKfS0_Pf"), 30, 0, 0, 0, 0, 0, 0);
  check(kernel(&c, "scale_c"), 8, 0, 0, 0, 0, 0, 0);
  check(kernel(&c, "_Z2tkIdLi256EEvPKT_PS0_i"), 14, 1, 0, 0, 0, 2048, 0);
  check(kernel(&c, "_Z2tkIfLi128EEvPKT_PS0_i"), 12, 1, 0, 0, 0, 512, 0);
  assert_string_equal(kernel(&c, "_Z2tkIfLi128EEvPKT_PS0_i")->demangled,
                      "tk<float, 128>(float const*, float*, int)");
  assert_string_equal(kernel(&c, "_ZN2ns9uses_callEPKfPfi")->demangled,
                      "ns::uses_call(float const*, float*, int)");
  assert_string_equal(kernel(&c, "scale_c")->demangled, "scale_c");  /* extern "C" */
  kr_arena_free(a);
}

static void ptxas_report_of_sm80_has_constant_bank_zero(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrCubin c = {0};
  assert_int_equal(kr_ptxas_parse(fixture(a, "resources.sm_80.log", NULL), a, &c), KR_OK);
  assert_int_equal(c.kernels.len, 5);
  check(kernel(&c, "_Z6conv2diiiiPKfS0_Pf"), 27, 0, 0, 0, 0, 0, 392);
  check(kernel(&c, "_Z2tkIfLi128EEvPKT_PS0_i"), 10, 1, 0, 0, 0, 512, 372);
  check(kernel(&c, "scale_c"), 8, 0, 0, 0, 0, 0, 368);  /* not cmem[3], the module's constants */
  kr_arena_free(a);
}

static void ptxas_report_with_maxrregcount_shows_spills(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrCubin c = {0};
  assert_int_equal(kr_ptxas_parse(fixture(a, "spills.log", NULL), a, &c), KR_OK);
  assert_int_equal(c.kernels.len, 1);
  check(kernel(&c, "_Z5heavyPKfPfi"), 24, 0, 424, 856, 932, 0, 0);
  assert_string_equal(c.kernels.data[0].demangled, "heavy(float const*, float*, int)");
  kr_arena_free(a);
}

/* The wording of CUDA 11 and 12 (from the issue; no capture of those versions here). */
static void ptxas_report_in_older_wording_is_read(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrCubin c = {0};
  const char *log =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z6conv2diiiiPKfS0_Pf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z6conv2diiiiPKfS0_Pf\n"
    "    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 4096 bytes smem, 400 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'old' for 'sm_70'\n"
    "ptxas info    : Used 20 registers, 64 bytes smem, 356 bytes cmem[0], 8 bytes cmem[2]\n";
  assert_int_equal(kr_ptxas_parse(log, a, &c), KR_OK);
  assert_int_equal(c.kernels.len, 2);
  check(&c.kernels.data[0], 32, 1, 8, 4, 12, 4096, 400);
  check(&c.kernels.data[1], 20, 0, 0, 0, 0, 64, 356);
  kr_arena_free(a);
}

static void ptxas_report_that_cannot_be_read_is_an_error(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrCubin c = {0};
  assert_int_equal(kr_ptxas_parse("ptxas info    : Used 12 registers\n", a, &c), KR_ERR);  /* no entry */
  c = (KrCubin){0};
  assert_int_equal(kr_ptxas_parse("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                                  "ptxas info    : Used many registers\n", a, &c), KR_ERR);
  kr_arena_free(a);
}

static void resources_json_has_every_number(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrCubin c = {.arch = "sm_90", .nvcc_version = "Cuda compilation tools, release 13.0, V13.0.88"};
  assert_int_equal(kr_ptxas_parse(fixture(a, "spills.log", NULL), a, &c), KR_OK);
  KrBuf b = {0};
  kr_cubin_resources_json(&c, &b);
  assert_non_null(strstr(b.data, "\"arch\": \"sm_90\""));
  assert_non_null(strstr(b.data, "\"name\": \"_Z5heavyPKfPfi\", \"demangled\": \"heavy(float const*, "
                                 "float*, int)\", \"registers\": 24, \"barriers\": 0, \"stack_frame\": "
                                 "424, \"spill_stores\": 856, \"spill_loads\": 932, \"smem\": 0, "
                                 "\"cmem\": 0}"));
  kr_buf_free(&b);
  kr_arena_free(a);
}

/* ---- nvcc's messages --------------------------------------------------------------------------------- */

static void undefined_identifier_is_located_in_the_users_file(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = errors_of(a, "undefined.cu", "undefined.log", "kernels/undefined.cu");
  assert_int_equal(d->items.len, 1);
  check_diag(&d->items.data[0], KR_DIAG_ERROR, "kernels/undefined.cu", 4, 21,
             "identifier \"foo\" is undefined");
  assert_string_equal(d->items.data[0].source_line, "  if (i < n) x[i] = foo * 2.0f;");
  kr_diags_free(d);
  kr_arena_free(a);
}

static void syntax_errors_and_warnings_keep_their_order_and_columns(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = errors_of(a, "syntax.cu", "syntax.log", "syntax.cu");
  assert_int_equal(d->items.len, 3);
  assert_int_equal(d->nerrors, 2);
  check_diag(&d->items.data[0], KR_DIAG_ERROR, "syntax.cu", 4, 3, "expected a \";\"");
  check_diag(&d->items.data[1], KR_DIAG_WARNING, "syntax.cu", 3, 7,
             "variable \"i\" was declared but never referenced [#177-D]");
  check_diag(&d->items.data[2], KR_DIAG_ERROR, "syntax.cu", 6, 1, "expected a declaration");
  char *text = diag_text(d);
  assert_null(strstr(text, CAPTURE));  /* the temporary path never shows */
  assert_null(strstr(text, "Remark"));
  free(text);
  kr_diags_free(d);
  kr_arena_free(a);
}

static void warning_alone_is_no_error(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = errors_of(a, "warning.cu", "warning.log", "w.cu");
  assert_int_equal(d->items.len, 1);
  assert_int_equal(d->nerrors, 0);
  check_diag(&d->items.data[0], KR_DIAG_WARNING, "w.cu", 3, 7, "\"unused_thing\"");
  kr_diags_free(d);
  kr_arena_free(a);
}

static void ptxas_error_names_the_kernel_readably(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = errors_of(a, "too_much_smem.cu", "too_much_smem.log", "big.cu");
  assert_int_equal(d->items.len, 1);
  check_diag(&d->items.data[0], KR_DIAG_ERROR, "big.cu", 0, 0,
             "ptxas: Entry function '_Z3bigPf' (big(float*)) uses too much shared data");
  kr_diags_free(d);
  kr_arena_free(a);
}

static void host_preprocessor_error_is_located(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = errors_of(a, "missing_include.cu", "missing_include.log", "inc.cu");
  assert_int_equal(d->items.len, 3);   /* the error, the folders searched, what to do */
  check_diag(&d->items.data[0], KR_DIAG_ERROR, "inc.cu", 3, 10, "header \"no_such_header.cuh\" not found");
  check_diag(&d->items.data[1], KR_DIAG_NOTE, NULL, 0, 0,
             "searched for \"no_such_header.cuh\", in order: . (the source's folder), then nvcc's");
  check_diag(&d->items.data[2], KR_DIAG_NOTE, NULL, 0, 0, "add -I DIR, with DIR/no_such_header.cuh its path");
  kr_diags_free(d);
  kr_arena_free(a);
}

/* nvcc echoes the preprocessed line (tabs as one space, __global__ expanded): the caret's token
 * is found in the real line. The instantiation context becomes a note at its line. */
static void caret_maps_through_tabs_and_macro_expansion(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = errors_of(a, "template_error.cu", "template_error.log", "t.cu");
  assert_int_equal(d->items.len, 3);
  check_diag(&d->items.data[0], KR_DIAG_ERROR, "t.cu", 5, 10, "identifier \"bar\" is undefined");
  check_diag(&d->items.data[1], KR_DIAG_ERROR, "t.cu", 7, 56, "must be a class or namespace name");
  check_diag(&d->items.data[2], KR_DIAG_NOTE, "t.cu", 8, 1,
             "detected during instantiation of \"void t(T *) [with T=float]\" at line 8");
  kr_diags_free(d);
  kr_arena_free(a);
}

/* ---- Finding nvcc --------------------------------------------------------------------------------------- */

static void cudacxx_naming_nothing_is_a_clear_error(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *p;
  assert_int_equal(kr_nvcc_find_in("/nowhere/nvcc", "/usr/local/cuda/bin/nvcc", "", &p, a, d), KR_ERR);
  assert_null(p);
  assert_int_equal(d->nerrors, 1);
  assert_non_null(strstr(d->items.data[0].message, "CUDACXX is '/nowhere/nvcc', which is not an executable"));
  kr_diags_free(d);
  d = kr_diags_new();
  assert_int_equal(kr_nvcc_find_in(NULL, "/nowhere/cuda/bin/nvcc", "", &p, a, d), KR_ERR);
  assert_non_null(strstr(d->items.data[0].message, "nvcc not found"));
  kr_diags_free(d);
  kr_arena_free(a);
}

static void nvcc_is_looked_up_in_path(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  const char *p;
  assert_int_equal(kr_nvcc_find_in("slow_nvcc.sh", NULL, "/nowhere:" FIXTURES, &p, a, d), KR_OK);
  assert_string_equal(p, FIXTURES "/slow_nvcc.sh");
  assert_int_equal(kr_nvcc_find_in(NULL, "/nowhere/nvcc", "/nowhere", &p, a, d), KR_ERR);
  kr_diags_free(d);
  kr_arena_free(a);
}

static void compile_without_nvcc_reports_it(void **state) {
  Fix *f = *state;
  char *old_cxx = set_env("CUDACXX", "/nowhere/nvcc"), *old_path = set_env("PATH", "");
  KrCubin c;
  KrStatus st = compile_text(f, "k.cu", "__global__ void k() {}\n", &c);
  restore_env("CUDACXX", old_cxx);
  restore_env("PATH", old_path);
  assert_int_equal(st, KR_ERR);
  assert_non_null(strstr(f->d->items.data[0].message, "CUDACXX is '/nowhere/nvcc'"));
}

/* ---- Time limits and failures (a fake nvcc) --------------------------------------------------------------- */

static void compile_past_the_time_limit_is_stopped_and_reported(void **state) {
  Fix *f = *state;
  char *old = set_env("CUDACXX", FIXTURES "/slow_nvcc.sh");
  f->o.timeout_s = 0.5;
  KrCubin c;
  double t0 = kr_now_s();
  KrStatus st = compile_text(f, "slow.cu", "__global__ void k() {}\n", &c);
  double took = kr_now_s() - t0;
  restore_env("CUDACXX", old);
  assert_int_equal(st, KR_ERR);
  assert_true(took < 10.0);  /* the fake sleeps 60 s */
  char *text = diag_text(f->d);
  assert_non_null(strstr(text, "slow.cu: error: nvcc did not finish within 0.5 s"));
  free(text);
}

static void silent_nvcc_failure_still_gives_an_error(void **state) {
  Fix *f = *state;
  char *old = set_env("CUDACXX", FIXTURES "/slow_nvcc.sh"), *old_mode = set_env("FAKE_NVCC", "fail");
  KrCubin c;
  KrStatus st = compile_text(f, "quiet.cu", "__global__ void k() {}\n", &c);
  restore_env("CUDACXX", old);
  restore_env("FAKE_NVCC", old_mode);
  assert_int_equal(st, KR_ERR);
  assert_int_equal(f->d->nerrors, 1);
  assert_string_equal(f->d->items.data[0].message, "nvcc failed (exit status 3)");
}

static void proc_run_captures_stdout_and_stderr_apart(void **state) {
  (void)state;
  const char *argv[] = {"sh", "-c", "echo out; echo err >&2; echo \"$KR_X $LC_ALL\"; exit 4", NULL};
  const char *env[] = {"KR_X=fromenv", NULL};
  KrBuf out = {0}, err = {0};
  KrProcResult r;
  assert_int_equal(kr_proc_run(argv, env, 10, &out, &err, &r), KR_OK);
  assert_true(r.started && !r.timed_out);
  assert_int_equal(WEXITSTATUS(r.status), 4);
  char *o = kr_buf_steal(&out), *e = kr_buf_steal(&err);
  assert_string_equal(o, "out\nfromenv C\n");
  assert_string_equal(e, "err\n");
  free(o);
  free(e);
  const char *missing[] = {"/nowhere/tool", NULL};
  assert_int_equal(kr_proc_run(missing, NULL, 10, &out, NULL, &r), KR_ERR);
  assert_non_null(strstr(out.data, "cannot run '/nowhere/tool'"));
  kr_buf_free(&out);
  kr_buf_free(&err);
}

/* ---- Compiling with the real nvcc ------------------------------------------------------------------------- */

static void compile_reports_resources_then_hits_the_cache(void **state) {
  NEED_NVCC();
  Fix *f = *state;
  char *text = unique_source(f, "cache");
  KrCubin c1, c2;
  assert_int_equal(compile_text(f, "resources.cu", text, &c1), KR_OK);
  assert_false(c1.from_cache);
  assert_true(c1.size > 1000);
  assert_memory_equal(c1.data, "\177ELF", 4);
  assert_string_equal(c1.arch, "sm_90");
  assert_non_null(strstr(c1.nvcc_version, "release "));
  assert_int_equal(c1.kernels.len, 5);
  /* Shared memory and barriers follow from the source; registers from the compiler, so they
   * must equal the captured report's only when this is the nvcc that made it. */
  const KrKernelResources *tf = kernel(&c1, "_Z2tkIfLi128EEvPKT_PS0_i");
  assert_int_equal(tf->smem, 512);
  assert_int_equal(tf->barriers, 1);
  assert_int_equal(kernel(&c1, "_Z2tkIdLi256EEvPKT_PS0_i")->smem, 2048);
  if (strstr(fixture(f->a, "version.log", NULL), c1.nvcc_version)) {
    check(tf, 12, 1, 0, 0, 0, 512, 0);
    check(kernel(&c1, "_Z2tkIdLi256EEvPKT_PS0_i"), 14, 1, 0, 0, 0, 2048, 0);
    check(kernel(&c1, "_ZN2ns9uses_callEPKfPfi"), 47, 0, 0, 0, 0, 0, 0);
  }
  assert_int_equal(compile_text(f, "resources.cu", text, &c2), KR_OK);
  assert_true(c2.from_cache);
  assert_int_equal(c2.size, c1.size);
  assert_memory_equal(c2.data, c1.data, c1.size);
  assert_int_equal(c2.kernels.len, 5);
  assert_int_equal(kernel(&c2, "_Z6conv2diiiiPKfS0_Pf")->registers,
                   kernel(&c1, "_Z6conv2diiiiPKfS0_Pf")->registers);
  assert_int_equal(f->d->items.len, 0);
}

static void changed_source_flags_or_arch_miss_the_cache(void **state) {
  NEED_NVCC();
  Fix *f = *state;
  char *text = unique_source(f, "miss");
  KrCubin c;
  assert_int_equal(compile_text(f, "r.cu", text, &c), KR_OK);
  assert_false(c.from_cache);
  assert_int_equal(compile_text(f, "r.cu", kr_arena_printf(f->a, "%s// edited\n", text), &c), KR_OK);
  assert_false(c.from_cache);
  const char *flags[] = {"-maxrregcount=32"};
  f->o.flags = flags;
  f->o.nflags = 1;
  assert_int_equal(compile_text(f, "r.cu", text, &c), KR_OK);
  assert_false(c.from_cache);
  assert_int_equal(compile_text(f, "r.cu", text, &c), KR_OK);
  assert_true(c.from_cache);
  f->o.arch = "sm_80";
  assert_int_equal(compile_text(f, "r.cu", text, &c), KR_OK);
  assert_false(c.from_cache);
  assert_int_equal(kernel(&c, "_Z6conv2diiiiPKfS0_Pf")->cmem, 392);
  f->o.no_cache = true;
  assert_int_equal(compile_text(f, "r.cu", text, &c), KR_OK);
  assert_false(c.from_cache);
}

static void an_included_header_is_part_of_the_key(void **state) {
  NEED_NVCC();
  Fix *f = *state;
  const char *hdr = kr_arena_printf(f->a, "%s/scale.cuh", f->cache);
  const char *cu = kr_arena_printf(f->a, "%s/k.cu", f->cache);
  const char *text = "#include \"scale.cuh\"\n__global__ void k(float *x) { x[threadIdx.x] *= SCALE; }\n";
  assert_true(kr_file_write(hdr, "#define SCALE 2.0f\n", 19));
  KrCubin c;
  assert_int_equal(compile_text(f, cu, text, &c), KR_OK);
  assert_int_equal(compile_text(f, cu, text, &c), KR_OK);
  assert_true(c.from_cache);
  assert_true(kr_file_write(hdr, "#define SCALE 3.0f\n", 19));
  assert_int_equal(compile_text(f, cu, text, &c), KR_OK);
  assert_false(c.from_cache);
}

static void concurrent_compiles_of_one_source_both_succeed(void **state) {
  NEED_NVCC();
  Fix *f = *state;
  char *text = unique_source(f, "concurrent");
  pid_t kids[3];
  for (int i = 0; i < 3; i++) {
    kids[i] = fork();
    assert_true(kids[i] >= 0);
    if (kids[i] == 0) {
      KrCubin c;
      bool ok = compile_text(f, "r.cu", text, &c) == KR_OK && c.kernels.len == 5 &&
                memcmp(c.data, "\177ELF", 4) == 0;
      _exit(ok ? 0 : 1);
    }
  }
  for (int i = 0; i < 3; i++) {
    int status;
    assert_int_equal(waitpid(kids[i], &status, 0), kids[i]);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  KrCubin c;
  assert_int_equal(compile_text(f, "r.cu", text, &c), KR_OK);
  assert_true(c.from_cache);
  /* Nothing but the one entry is left in the cache: no temporary files. */
  KrBuf out = {0};
  KrProcResult r;
  const char *ls[] = {"ls", "-A", f->cache, NULL};
  assert_int_equal(kr_proc_run(ls, NULL, 10, &out, NULL, &r), KR_OK);
  char *names = kr_buf_steal(&out);
  assert_non_null(strstr(names, ".krc\n"));
  assert_null(strchr(strstr(names, ".krc\n") + 5, '\n'));
  free(names);
}

static void damaged_cache_entry_is_detected_and_rebuilt(void **state) {
  NEED_NVCC();
  Fix *f = *state;
  char *text = unique_source(f, "damaged");
  KrCubin c1, c2, c3;
  assert_int_equal(compile_text(f, "r.cu", text, &c1), KR_OK);
  /* Flip a byte in the middle of the cubin part (the entry ends with the cubin). */
  char *entry;
  size_t len;
  assert_int_equal(kr_file_read(c1.cache_path, f->a, &entry, &len, f->d), KR_OK);
  entry[len - c1.size / 2] ^= 0x5a;
  assert_true(kr_file_write(c1.cache_path, entry, len));
  assert_int_equal(compile_text(f, "r.cu", text, &c2), KR_OK);
  assert_false(c2.from_cache);
  assert_int_equal(f->d->items.len, 1);
  check_diag(&f->d->items.data[0], KR_DIAG_NOTE, c1.cache_path, 0, 0, "damaged");
  assert_int_equal(c2.kernels.len, 5);
  assert_int_equal(compile_text(f, "r.cu", text, &c3), KR_OK);
  assert_true(c3.from_cache);
  /* A truncated entry too. */
  assert_true(kr_file_write(c1.cache_path, entry, len / 3));
  assert_int_equal(compile_text(f, "r.cu", text, &c3), KR_OK);
  assert_false(c3.from_cache);
  assert_int_equal(f->d->items.len, 2);
}

static void compile_errors_come_back_located_and_are_not_cached(void **state) {
  NEED_NVCC();
  Fix *f = *state;
  const char *text = fixture(f->a, "undefined.cu", NULL);
  KrCubin c;
  for (int round = 0; round < 2; round++) {
    assert_int_equal(compile_text(f, "src/undefined.cu", text, &c), KR_ERR);
    assert_false(c.from_cache);
  }
  assert_int_equal(f->d->items.len, 2);
  check_diag(&f->d->items.data[1], KR_DIAG_ERROR, "src/undefined.cu", 4, 21,
             "identifier \"foo\" is undefined");
}

static void warnings_are_reported_again_from_the_cache(void **state) {
  NEED_NVCC();
  Fix *f = *state;
  const char *text = kr_arena_printf(f->a, "%s// %s\n", fixture(f->a, "warning.cu", NULL), f->cache);
  KrCubin c;
  assert_int_equal(compile_text(f, "w.cu", text, &c), KR_OK);
  assert_int_equal(compile_text(f, "w.cu", text, &c), KR_OK);
  assert_true(c.from_cache);
  assert_int_equal(f->d->items.len, 2);
  for (int i = 0; i < 2; i++)
    check_diag(&f->d->items.data[i], KR_DIAG_WARNING, "w.cu", 3, 7, "\"unused_thing\"");
}

#define FIX(t) cmocka_unit_test_setup_teardown(t, fix_setup, fix_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(ptxas_report_of_sm90_lists_each_entry_with_its_resources),
    cmocka_unit_test(ptxas_report_of_sm80_has_constant_bank_zero),
    cmocka_unit_test(ptxas_report_with_maxrregcount_shows_spills),
    cmocka_unit_test(ptxas_report_in_older_wording_is_read),
    cmocka_unit_test(ptxas_report_that_cannot_be_read_is_an_error),
    cmocka_unit_test(resources_json_has_every_number),
    cmocka_unit_test(undefined_identifier_is_located_in_the_users_file),
    cmocka_unit_test(syntax_errors_and_warnings_keep_their_order_and_columns),
    cmocka_unit_test(warning_alone_is_no_error),
    cmocka_unit_test(ptxas_error_names_the_kernel_readably),
    cmocka_unit_test(host_preprocessor_error_is_located),
    cmocka_unit_test(caret_maps_through_tabs_and_macro_expansion),
    cmocka_unit_test(cudacxx_naming_nothing_is_a_clear_error),
    cmocka_unit_test(nvcc_is_looked_up_in_path),
    cmocka_unit_test(proc_run_captures_stdout_and_stderr_apart),
    FIX(compile_without_nvcc_reports_it),
    FIX(compile_past_the_time_limit_is_stopped_and_reported),
    FIX(silent_nvcc_failure_still_gives_an_error),
    FIX(compile_reports_resources_then_hits_the_cache),
    FIX(changed_source_flags_or_arch_miss_the_cache),
    FIX(an_included_header_is_part_of_the_key),
    FIX(concurrent_compiles_of_one_source_both_succeed),
    FIX(damaged_cache_entry_is_detected_and_rebuilt),
    FIX(compile_errors_come_back_located_and_are_not_cached),
    FIX(warnings_are_reported_again_from_the_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
