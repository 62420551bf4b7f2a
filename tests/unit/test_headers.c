/* tests/unit/test_headers.c: a header that cannot be found (frontend/headers.h), read from what the
 * real compilers print (the .log files in tests/fixtures/missing_header/, made by its capture.sh with
 * nvcc 13.0, g++ 12 and clang 14) and reported the same way for nvcc's build (backend/nvcc_parse.c)
 * and the emulator's: the header, the #include that names it, the chain of includes, the folders
 * searched in order, and what to do. The logs name the fixture's headers relative to the
 * repository's root, where the tests run (setup). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/nvcc.h"
#include "frontend/headers.h"

#define DIR "tests/fixtures/missing_header"
#define TMP "/tmp/kr-missing-header"   /* where capture.sh compiled the copies */

typedef struct Fix {
  KrArena *a;
  KrDiags *d;
  KrBuildFlags flags;   /* as problem.lua gives them: the source's folder, then inc/ */
} Fix;

static int setup(void **state) {
  if (chdir(KR_SOURCE_DIR) != 0) return -1;
  Fix *f = calloc(1, sizeof *f);
  f->a = kr_arena_new();
  f->d = kr_diags_new();
  f->flags.source_dir = DIR;
  kr_vec_push(f->a, &f->flags.include_dirs, DIR "/inc");
  *state = f;
  return 0;
}

static int teardown(void **state) {
  Fix *f = *state;
  kr_diags_free(f->d);
  kr_arena_free(f->a);
  free(f);
  return 0;
}

static char *read_text(Fix *f, const char *path, size_t *len) {
  char *text;
  size_t n;
  assert_int_equal(kr_file_read(path, f->a, &text, &n, f->d), KR_OK);
  if (len) *len = n;
  return text;
}

/* The fixture's .cu as the file built, under its user's path. */
static const KrSource *source(Fix *f, const char *name) {
  KrSource *src = kr_arena_alloc(f->a, sizeof *src);
  const char *path = kr_arena_printf(f->a, "%s/%s", DIR, name);
  size_t len;
  char *text = read_text(f, path, &len);
  assert_int_equal(kr_source_from_text(src, path, text, len, f->a, f->d), KR_OK);
  return src;
}

static void check_site(const KrMissingHeader *m, size_t i, const char *file, uint32_t line) {
  assert_true(i < m->chain.len);
  assert_string_equal(m->chain.data[i].file, file);
  assert_int_equal(m->chain.data[i].line, line);
}

/* deep.cu's chain, outermost first: deep.cu:4 includes sub/chain.cuh, whose line 4 includes b.cuh,
 * whose line 4 includes c.cuh. */
static void check_deep_chain(const KrMissingHeader *m) {
  assert_string_equal(m->name, "c.cuh");
  assert_int_equal(m->chain.len, 3);
  check_site(m, 0, TMP "/deep.cu", 4);
  check_site(m, 1, DIR "/sub/chain.cuh", 4);
  check_site(m, 2, DIR "/sub/b.cuh", 4);
}

static void check_diag(const KrDiags *d, size_t i, KrSeverity sev, const char *path, uint32_t line, uint32_t col,
                       const char *message) {
  assert_true(i < d->items.len);
  const KrDiag *g = &d->items.data[i];
  if (g->severity != sev || (path ? !g->path || strcmp(g->path, path) : g->path != NULL) || g->line != line ||
      g->col != col || strcmp(g->message, message) != 0)
    fail_msg("diagnostic %zu: %s:%u:%u: %s\nwanted:        %s:%u:%u: %s", i, g->path ? g->path : "(none)", g->line,
             g->col, g->message, path ? path : "(none)", line, col, message);
}

/* ---- Reading ----------------------------------------------------------------------------------------- */

/* gcc lists the includers innermost first ("In file included from", then "from" lines). */
static void gcc_chain_is_read_outermost_first(void **state) {
  Fix *f = *state;
  const char *log = read_text(f, DIR "/gxx_deep.log", NULL);
  KrMissingHeader m;
  assert_true(kr_header_missing_find(log, f->a, &m));
  check_deep_chain(&m);
  assert_int_equal(m.begin, 0);
  assert_string_equal(log + m.end, "compilation terminated.\n");
}

/* clang lists them outermost first, an "In file included from" each, and quotes the name. */
static void clang_chain_is_read_in_its_own_order(void **state) {
  Fix *f = *state;
  KrMissingHeader m;
  assert_true(kr_header_missing_find(read_text(f, DIR "/clang_deep.log", NULL), f->a, &m));
  check_deep_chain(&m);
}

static void other_errors_are_no_missing_header(void **state) {
  Fix *f = *state;
  KrMissingHeader m;
  assert_false(kr_header_missing_find("a.cu:3:5: error: 'x' was not declared in this scope\n", f->a, &m));
  assert_false(kr_header_missing_find("In file included from a.cu:2:\nb.h:1:1: error: expected ';'\n", f->a, &m));
  assert_false(kr_header_missing_find("", f->a, &m));
  assert_false(kr_header_missing_find(NULL, f->a, &m));
}

static void an_include_line_names_its_header(void **state) {
  (void)state;
  size_t n;
  const char *line = "  #  include\t\"sub/b.cuh\" // why\nnext";
  assert_ptr_equal(kr_header_included(line, &n), strchr(line, '"'));
  assert_int_equal(n, 11);
  assert_non_null(kr_header_included("#include <cuda_fp16.h>\n", &n));
  assert_int_equal(n, 13);
  assert_null(kr_header_included("#include KR_HEADER\n", &n));
  assert_null(kr_header_included("#include \"open\n\"", &n));
  assert_null(kr_header_included("#define X \"x.h\"\n", &n));
  assert_null(kr_header_included("x = 1; #include \"x.h\"\n", &n));
}

/* ---- Reporting --------------------------------------------------------------------------------------- */

/* nvcc's log of a.cu (a.cu:6 includes "sub/b.cuh", whose line 4 includes "c.cuh"): the error at
 * the name in b.cuh, the chain, nvcc's folders (the source's as -I, so for <> names too); the
 * source echo, the caret and "compilation terminated." are not repeated. */
static void nvcc_log_names_the_chain_and_the_folders(void **state) {
  Fix *f = *state;
  kr_nvcc_parse_errors(read_text(f, DIR "/nvcc.log", NULL), TMP "/a.cu", source(f, "a.cu"), &f->flags, f->d);
  assert_int_equal(f->d->items.len, 5);
  check_diag(f->d, 0, KR_DIAG_ERROR, DIR "/sub/b.cuh", 4, 10, "header \"c.cuh\" not found");
  assert_string_equal(f->d->items.data[0].source_line, "#include \"c.cuh\"");
  check_diag(f->d, 1, KR_DIAG_NOTE, DIR "/a.cu", 6, 0, "includes \"sub/b.cuh\"");
  check_diag(f->d, 2, KR_DIAG_NOTE, DIR "/sub/b.cuh", 4, 0, "includes \"c.cuh\", which is not found");
  check_diag(f->d, 3, KR_DIAG_NOTE, NULL, 0, 0,
             "searched for \"c.cuh\", in order: " DIR "/sub (beside b.cuh), " DIR " (the source's folder), " DIR
             "/inc (-I), then nvcc's CUDA headers and the host compiler's system folders");
  check_diag(f->d, 4, KR_DIAG_NOTE, NULL, 0, 0,
             "if the header is elsewhere, add -I DIR, with DIR/c.cuh its path (or DIR to the problem spec's "
             "include = { ... })");
  assert_int_equal(f->d->nerrors, 1);
}

/* The emulator's search: the source's folder by -iquote, then the stand-in CUDA headers, then each
 * -I; a header found somewhere other than beside its includer says where. */
static void emulator_search_lists_the_stand_ins_before_each_include_folder(void **state) {
  Fix *f = *state;
  KrMissingHeader m;
  assert_true(kr_header_missing_find(read_text(f, DIR "/gxx_deep.log", NULL), f->a, &m));
  m.chain.data[0].file = DIR "/deep.cu";   /* the emulator's view names the .cu by its path (#line) */
  KrHeaderSearch s = {.src = source(f, "deep.cu"), .flags = &f->flags, .source_dir_quoted_only = true,
                      .stand_ins = "the emulator's stand-in CUDA headers", .last = "the C++ compiler's system folders"};
  kr_header_missing_report(&m, &s, f->d);
  assert_int_equal(f->d->items.len, 6);
  check_diag(f->d, 0, KR_DIAG_ERROR, DIR "/sub/b.cuh", 4, 10, "header \"c.cuh\" not found");
  check_diag(f->d, 1, KR_DIAG_NOTE, DIR "/deep.cu", 4, 0, "includes \"sub/chain.cuh\"");
  check_diag(f->d, 2, KR_DIAG_NOTE, DIR "/sub/chain.cuh", 4, 0, "includes \"b.cuh\"");
  check_diag(f->d, 3, KR_DIAG_NOTE, DIR "/sub/b.cuh", 4, 0, "includes \"c.cuh\", which is not found");
  check_diag(f->d, 4, KR_DIAG_NOTE, NULL, 0, 0,
             "searched for \"c.cuh\", in order: " DIR "/sub (beside b.cuh), " DIR " (the source's folder), the "
             "emulator's stand-in CUDA headers, " DIR "/inc (-I), then the C++ compiler's system folders");
}

/* A header found through -I is named where it was found; a folder searched for two reasons is
 * listed once, with both. */
static void a_header_found_elsewhere_is_named_where(void **state) {
  Fix *f = *state;
  const char *log = "In file included from " DIR "/inc/d.cuh:3,\n"
                    "                 from " TMP "/a.cu:5:\n" DIR "/sub/b.cuh:4:10: fatal error: c.cuh: No such file or "
                    "directory\n";
  KrMissingHeader m;
  assert_true(kr_header_missing_find(log, f->a, &m));
  kr_vec_push(f->a, &f->flags.include_dirs, "./" DIR "/sub");
  KrHeaderSearch s = {.src = source(f, "a.cu"), .tmp_path = TMP "/a.cu", .flags = &f->flags, .last = "more"};
  kr_header_missing_report(&m, &s, f->d);
  check_diag(f->d, 1, KR_DIAG_NOTE, DIR "/a.cu", 5, 0, "includes \"d.cuh\", found as " DIR "/inc/d.cuh");
  check_diag(f->d, 4, KR_DIAG_NOTE, NULL, 0, 0,
             "searched for \"c.cuh\", in order: " DIR "/sub (beside b.cuh; -I), " DIR " (the source's folder), " DIR
             "/inc (-I), then more");
}

/* <name>: not searched beside its includer, nor in an -iquote folder. */
static void an_angled_name_skips_the_quote_folders(void **state) {
  Fix *f = *state;
  const char *log = TMP "/a.cu:4:10: fatal error: cuda_runtime.h: No such file or directory\n";
  KrMissingHeader m;
  assert_true(kr_header_missing_find(log, f->a, &m));
  KrHeaderSearch s = {.src = source(f, "a.cu"), .tmp_path = TMP "/a.cu", .flags = &f->flags,
                      .source_dir_quoted_only = true, .stand_ins = "the stand-ins", .last = "the system's"};
  kr_header_missing_report(&m, &s, f->d);
  assert_int_equal(f->d->items.len, 3);   /* no chain: the error's line is all of it */
  check_diag(f->d, 0, KR_DIAG_ERROR, DIR "/a.cu", 4, 10, "header <cuda_runtime.h> not found");
  check_diag(f->d, 1, KR_DIAG_NOTE, NULL, 0, 0,
             "searched for <cuda_runtime.h>, in order: the stand-ins, " DIR "/inc (-I), then the system's");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(gcc_chain_is_read_outermost_first, setup, teardown),
    cmocka_unit_test_setup_teardown(clang_chain_is_read_in_its_own_order, setup, teardown),
    cmocka_unit_test_setup_teardown(other_errors_are_no_missing_header, setup, teardown),
    cmocka_unit_test(an_include_line_names_its_header),
    cmocka_unit_test_setup_teardown(nvcc_log_names_the_chain_and_the_folders, setup, teardown),
    cmocka_unit_test_setup_teardown(emulator_search_lists_the_stand_ins_before_each_include_folder, setup, teardown),
    cmocka_unit_test_setup_teardown(a_header_found_elsewhere_is_named_where, setup, teardown),
    cmocka_unit_test_setup_teardown(an_angled_name_skips_the_quote_folders, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
