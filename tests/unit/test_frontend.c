/* tests/unit/test_frontend.c: the front end's pieces: arena, buffers, source checks,
 * diagnostics, SHA-256, atomic writes, the kernel model, the grammar workarounds, diffs, and a
 * sweep over tests/corpus. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diff.h"
#include "frontend/model.h"
#include "frontend/preproc.h"
#include "frontend/types.h"

/* ---- Helpers ------------------------------------------------------------------------------------ */

typedef struct Parsed {
  KrArena *arena;
  KrDiags *diags;
  KrSource src;
  KrTree *tree;
  KrModel *model;
} Parsed;

static Parsed *parse_defined(const char *text, const char *const *defines, size_t ndefines) {
  Parsed *p = calloc(1, sizeof *p);
  p->arena = kr_arena_new();
  p->diags = kr_diags_new();
  assert_int_equal(kr_source_from_text(&p->src, "t.cu", text, strlen(text), p->arena, p->diags), KR_OK);
  p->src.defines = defines;
  p->src.ndefines = ndefines;
  p->tree = kr_tree_parse(&p->src, p->diags);
  assert_non_null(p->tree);
  p->model = kr_model_new(p->tree, p->arena);
  return p;
}

static Parsed *parse_text(const char *text) { return parse_defined(text, NULL, 0); }

static void parsed_free(Parsed *p) {
  kr_tree_free(p->tree);
  kr_diags_free(p->diags);
  kr_arena_free(p->arena);
  free(p);
}

static const char *first_message(const KrDiags *d) {
  return d->items.len ? d->items.data[0].message : "";
}

/* ---- Arena, vectors, buffers ------------------------------------------------------------------- */

static void arena_aligns_to_16(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  for (size_t n = 1; n < 100; n += 7) assert_int_equal((uintptr_t)kr_arena_alloc(a, n) % 16, 0);
  void *big = kr_arena_alloc(a, 1 << 20);
  assert_int_equal((uintptr_t)big % 16, 0);
  kr_arena_free(a);
}

static void vector_keeps_elements_while_growing(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrVec(int) v = {0};
  for (int i = 0; i < 1000; i++) kr_vec_push(a, &v, i * 3);
  assert_int_equal(v.len, 1000);
  for (int i = 0; i < 1000; i++) assert_int_equal(v.data[i], i * 3);
  kr_arena_free(a);
}

static void json_strings_escape_quotes_and_control_bytes(void **state) {
  (void)state;
  KrBuf b = {0};
  kr_buf_json_string(&b, "a\"b\\c\n\x01", 7);
  assert_string_equal(b.data, "\"a\\\"b\\\\c\\n\\u0001\"");
  kr_buf_free(&b);
}

/* ---- Sources and diagnostics ------------------------------------------------------------------- */

static KrStatus load_text(const char *text, size_t len, KrDiags *d, KrArena *a) {
  KrSource s;
  return kr_source_from_text(&s, "x.cu", text, len, a, d);
}

static void binary_input_is_refused_with_its_offset(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  assert_int_equal(load_text("ab\ncd\0ef", 8, d, a), KR_ERR);
  assert_non_null(strstr(first_message(d), "NUL byte at offset 5"));
  assert_int_equal(d->items.data[0].line, 2);
  assert_int_equal(d->items.data[0].col, 3);
  kr_diags_free(d);
  kr_arena_free(a);
}

static void invalid_utf8_is_refused_but_valid_utf8_accepted(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  assert_int_equal(load_text("// 5 \xc2\xb5s \xe2\x86\x92 ok\n", 16, d, a), KR_OK);
  assert_int_equal(load_text("x \xc0\xaf", 4, d, a), KR_ERR);          /* overlong '/' */
  assert_int_equal(load_text("x \xed\xa0\x80", 5, d, a), KR_ERR);      /* a surrogate */
  assert_int_equal(load_text("x \xe2\x86", 4, d, a), KR_ERR);          /* truncated */
  assert_non_null(strstr(first_message(d), "not UTF-8"));
  kr_diags_free(d);
  kr_arena_free(a);
}

static void oversized_input_is_refused(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  size_t n = KR_SOURCE_MAX_BYTES + 1;
  char *big = malloc(n);
  memset(big, ' ', n);
  assert_int_equal(load_text(big, n, d, a), KR_ERR);
  assert_non_null(strstr(first_message(d), "over the limit"));
  free(big);
  kr_diags_free(d);
  kr_arena_free(a);
}

static void diagnostic_shows_line_and_caret(void **state) {
  (void)state;
  Parsed *p = parse_text("__global__ void k(float *x) {\n  int i = 0;\n\tx[i] = 1\n  x[i + 1] = 2;\n}\n");
  assert_int_equal(p->diags->nerrors, 1);
  KrBuf b = {0};
  kr_diags_format(p->diags, &b);
  assert_string_equal(b.data, "t.cu:3:9: error: syntax error near '1'\n"
                              "  \tx[i] = 1\n"
                              "  \t       ^\n");
  kr_buf_free(&b);
  parsed_free(p);
}

static void missing_file_and_directory_are_reported(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSource s;
  assert_int_equal(kr_source_read(&s, "/nonexistent/k.cu", a, d), KR_ERR);
  assert_non_null(strstr(first_message(d), "cannot open"));
  assert_int_equal(kr_source_read(&s, "/tmp", a, d), KR_ERR);
  assert_non_null(strstr(d->items.data[1].message, "is a directory"));
  kr_diags_free(d);
  kr_arena_free(a);
}

static void sha256_matches_the_standard_vectors(void **state) {
  (void)state;
  char h[65];
  kr_sha256_hex("abc", 3, h);
  assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  kr_sha256_hex("", 0, h);
  assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  kr_sha256_hex(m, strlen(m), h);
  assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void atomic_write_replaces_the_file_and_leaves_no_temporary(void **state) {
  (void)state;
  char dir[] = "/tmp/kr-test-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[64];
  snprintf(path, sizeof path, "%s/out.cu", dir);
  KrDiags *d = kr_diags_new();
  assert_int_equal(kr_file_write_atomic(path, "old", 3, d), KR_OK);
  assert_int_equal(kr_file_write_atomic(path, "new text", 8, d), KR_OK);
  FILE *f = fopen(path, "rb");
  char buf[16] = {0};
  assert_int_equal(fread(buf, 1, sizeof buf, f), 8);
  fclose(f);
  assert_string_equal(buf, "new text");
  DIR *dd = opendir(dir);
  int entries = 0;
  for (struct dirent *e; (e = readdir(dd));) entries += e->d_name[0] != '.';
  closedir(dd);
  assert_int_equal(entries, 1);
  snprintf(path, sizeof path, "%s/missing/out.cu", dir);
  assert_int_equal(kr_file_write_atomic(path, "x", 1, d), KR_ERR);
  assert_int_equal(d->nerrors, 1);
  snprintf(path, sizeof path, "%s/out.cu", dir);
  unlink(path);
  /* A device is written in place, not replaced by a renamed file; a folder is refused. */
  assert_int_equal(kr_file_write_atomic("/dev/null", "x", 1, d), KR_OK);
  struct stat st;
  assert_int_equal(stat("/dev/null", &st), 0);
  assert_true(S_ISCHR(st.st_mode));
  assert_int_equal(kr_file_write_atomic(dir, "x", 1, d), KR_ERR);
  assert_int_equal(d->nerrors, 2);
  rmdir(dir);
  kr_diags_free(d);
}

/* ---- The kernel model -------------------------------------------------------------------------- */

static const char *model_src =
  "template <typename T, int BS>\n"
  "__global__ void __launch_bounds__(256, 2) tk(const T *__restrict__ x, T *y, int n) {\n"
  "  __shared__ float tile[32][33];\n"
  "  extern __shared__ __align__(16) unsigned char dyn[];\n"
  "  #pragma unroll 4\n"
  "  for (int i = threadIdx.x; i < n; i += blockDim.x) { while (n) n--; }\n"
  "}\n"
  "extern \"C\" __global__ void ek(float **p, const int *const q) {}\n"
  "namespace ns { __global__ void k2(float x[]) {} }\n"
  "void host(float *x, float *y, int n, cudaStream_t s) {\n"
  "  tk<float, 128><<<(n + 255) / 256, 256, 64, s>>>(x, y, n);\n"
  "  ns::k2<<<dim3(1, 2), 32>>>(x);\n"
  "}\n";

/* A launch's callee finds the explicit specialization for its template arguments (blanks aside), else
 * the template; only the template is generic. */
static void a_launch_finds_its_explicit_specialization(void **state) {
  (void)state;
  Parsed *p = parse_text("template <typename T> __global__ void tk(T *x) { x[0] = 1; }\n"
                         "template <> __global__ void tk<float>(float *x) { x[0] = 2.0f; }\n"
                         "namespace ns { template <int B> __global__ void nk(float *x) {}\n"
                         "template <> __global__ void nk<4>(float *x) {} }\n");
  assert_int_equal(p->diags->nerrors, 0);
  const KrKernel *t = kr_model_find(p->model, "tk"), *f = kr_model_find_launch(p->model, "tk < float >");
  assert_non_null(t);
  assert_non_null(f);
  assert_true(t != f);
  assert_string_equal(f->name, "tk<float>");
  assert_true(kr_kernel_generic(t));
  assert_false(kr_kernel_generic(f));
  assert_ptr_equal(kr_model_find_launch(p->model, "tk<double>"), t);
  assert_ptr_equal(kr_model_find_launch(p->model, "::tk"), t);
  const KrKernel *n4 = kr_model_find_launch(p->model, "ns::nk<4>");
  assert_non_null(n4);
  assert_string_equal(n4->qualified_name, "ns::nk<4>");
  assert_ptr_equal(kr_model_find_launch(p->model, "ns::nk<8>"), kr_model_find(p->model, "ns::nk"));
  assert_null(kr_model_find_launch(p->model, "nope<float>"));
  parsed_free(p);
}

static void model_lists_kernels_with_their_attributes(void **state) {
  (void)state;
  Parsed *p = parse_text(model_src);
  assert_int_equal(p->diags->nerrors, 0);
  assert_int_equal(p->model->kernels.len, 3);
  const KrKernel *tk = kr_model_find(p->model, "tk");
  assert_non_null(tk);
  assert_true(tk->is_template);
  assert_string_equal(tk->template_params, "typename T, int BS");
  assert_string_equal(tk->launch_bounds, "256, 2");
  assert_int_equal(tk->line, 1);
  const KrKernel *ek = kr_model_find(p->model, "ek");
  assert_true(ek->extern_c);
  assert_non_null(kr_model_find(p->model, "ns::k2"));
  assert_null(kr_model_find(p->model, "nope"));
  assert_string_equal(kr_model_kernel_names(p->model, p->arena), "tk, ek, ns::k2");
  parsed_free(p);
}

static void model_reads_parameter_types(void **state) {
  (void)state;
  Parsed *p = parse_text(model_src);
  const KrKernel *tk = kr_model_find(p->model, "tk");
  assert_int_equal(tk->params.len, 3);
  const KrParam *x = &tk->params.data[0];
  assert_string_equal(x->name, "x");
  assert_string_equal(x->type, "const T *__restrict__");
  assert_true(x->is_const && x->is_restrict);
  assert_int_equal(x->pointer_depth, 1);
  assert_string_equal(tk->params.data[2].type, "int");
  const KrKernel *ek = kr_model_find(p->model, "ek");
  assert_int_equal(ek->params.data[0].pointer_depth, 2);
  assert_string_equal(ek->params.data[1].type, "const int *const");
  assert_int_equal(kr_model_find(p->model, "k2")->params.data[0].pointer_depth, 1);
  parsed_free(p);
}

static void model_reads_shared_arrays_and_loops(void **state) {
  (void)state;
  Parsed *p = parse_text(model_src);
  const KrKernel *tk = kr_model_find(p->model, "tk");
  assert_int_equal(tk->shared.len, 2);
  assert_string_equal(tk->shared.data[0].name, "tile");
  assert_string_equal(tk->shared.data[0].dims, "[32][33]");
  assert_false(tk->shared.data[0].is_extern);
  assert_string_equal(tk->shared.data[1].name, "dyn");
  assert_string_equal(tk->shared.data[1].type, "unsigned char");
  assert_true(tk->shared.data[1].is_extern);
  assert_int_equal(tk->loops.len, 2);
  assert_string_equal(tk->loops.data[0].var, "i");
  assert_string_equal(tk->loops.data[0].cond, "i < n");
  assert_string_equal(tk->loops.data[0].step, "i += blockDim.x");
  assert_string_equal(tk->loops.data[0].pragma, "unroll 4");
  assert_int_equal(tk->loops.data[1].kind, KR_LOOP_WHILE);
  assert_int_equal(tk->loops.data[1].depth, 1);
  assert_int_equal(tk->loops.data[1].parent, 0);
  parsed_free(p);
}

static void model_reads_launch_sites(void **state) {
  (void)state;
  Parsed *p = parse_text(model_src);
  assert_int_equal(p->model->launches.len, 2);
  const KrLaunch *a = &p->model->launches.data[0];
  assert_string_equal(a->kernel, "tk");
  assert_string_equal(a->template_args, "float, 128");
  assert_string_equal(a->grid, "(n + 255) / 256");
  assert_string_equal(a->block, "256");
  assert_string_equal(a->shmem, "64");
  assert_string_equal(a->stream, "s");
  assert_int_equal(a->args.len, 3);
  assert_string_equal(a->in_function, "host");
  const KrLaunch *b = &p->model->launches.data[1];
  assert_string_equal(b->kernel, "ns::k2");
  assert_string_equal(b->grid, "dim3(1, 2)");
  assert_null(b->shmem);
  parsed_free(p);
}

static void grammar_gaps_are_bridged_without_moving_offsets(void **state) {
  (void)state;
  const char *src =
    "__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1, 2) k(float *x) {\n"
    "  __shared__ __align__(16) float4 buf[2][8];\n"
    "  for (int i = 0; i < 4; i++)\n"
    "#pragma unroll\n"
    "    for (int j = 0; j < 4; j++) x[i * 4 + j] = 0;\n"
    "  auto f = [] __device__ (int a) { return a; };\n"
    "}\n";
  Parsed *p = parse_text(src);
  assert_int_equal(p->diags->nerrors, 0);
  const KrKernel *k = kr_model_find(p->model, "k");
  assert_non_null(k);
  assert_string_equal(k->launch_bounds, "128, 1");
  assert_string_equal(k->shared.data[0].name, "buf");
  assert_int_equal(k->loops.len, 2);
  assert_string_equal(k->loops.data[1].pragma, "unroll");
  assert_int_equal(k->loops.data[1].line, 5);
  parsed_free(p);
}

/* Host code nvcc takes and the grammar does not: an array new of pointers, and an #include inside
 * an initializer list. The view bridges both; the kernel after them keeps its line; a top-level
 * #define after a line whose comment ends in ',' is still read; a real error is still one. */
static void host_grammar_gaps_are_bridged(void **state) {
  (void)state;
  const char *src =
    "#include <vector>\n"
    "int **rows_of(int r, int c) {\n"
    "  int **m = new int*[r];\n"
    "  float ***f = new float **[c];\n"
    "  std::vector<int> **v = new std::vector<int> *[r];\n"
    "  return m;\n"
    "}\n"
    "static const int table[] = {\n"
    "#include \"table.inc\"\n"
    "};\n"
    "int weights[2][2] = { { 1, 2 },\n"
    "#include \"row.inc\"\n"
    "};\n"
    "int unused = 1; // a comment ending in a comma,\n"
    "#define SCALE 3\n"
    "__global__ void k(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] *= SCALE; }\n";
  Parsed *p = parse_text(src);
  assert_int_equal(p->diags->nerrors, 0);
  const KrKernel *k = kr_model_find(p->model, "k");
  assert_non_null(k);
  assert_int_equal(kr_source_line_of(&p->src, k->span.start) + 1, 16);
  assert_non_null(strstr(p->tree->view, "#define SCALE 3"));   /* not blanked */
  parsed_free(p);
  /* host code that does not parse: a warning at its place, the kernel after it still read */
  Parsed *bad = parse_text("int f() { int *a = new int*; return a[0] }\n__global__ void k(float *x) {}\n");
  assert_int_equal(bad->diags->nerrors, 0);
  assert_true(bad->diags->items.len > 0 && bad->diags->items.data[0].severity == KR_DIAG_WARNING);
  assert_int_equal(bad->diags->items.data[0].line, 1);
  assert_non_null(kr_model_find(bad->model, "k"));
  parsed_free(bad);
  /* in a kernel, or in a device function, it stays an error */
  Parsed *dev = parse_text("__device__ float g(float v) { return v + ; }\n__global__ void k(float *x) { x[0] = g(1); }\n");
  assert_true(dev->diags->nerrors > 0);
  parsed_free(dev);
  Parsed *ker = parse_text("void h() {}\n__global__ void k(float *x) { x[0] = 1 +; }\n");
  assert_true(ker->diags->nerrors > 0);
  assert_int_equal(ker->diags->items.data[0].line, 2);
  parsed_free(ker);
}

/* ---- The preprocessor's conditionals in the parser's view ------------------------------------------- */

static void preproc_conditions_evaluate_as_the_preprocessor_does(void **state) {
  (void)state;
  const char *defs[] = {"N=256", "FAST", "NEG=-3", "SELF=SELF", "F(x)=x"};
  assert_int_equal(kr_preproc_eval("N >= 128 && defined(FAST)", defs, 5), 1);
  assert_int_equal(kr_preproc_eval("defined FAST && !defined SLOW", defs, 5), 1);
  assert_int_equal(kr_preproc_eval("1 + 2 * 3 == 7 && (1 + 2) * 3 == 9", defs, 5), 1);
  assert_int_equal(kr_preproc_eval("NEG < 0 && -NEG == 3 && ~0 == -1", defs, 5), 1);
  assert_int_equal(kr_preproc_eval("1 << 4 == 16 && 256 >> 4 == 0x10 && 010 == 8 && 7 % 4 == 3", defs, 5), 1);
  assert_int_equal(kr_preproc_eval("N > 1000 ? 0 : 1", defs, 5), 1);
  assert_int_equal(kr_preproc_eval("'a' == 97 && 10UL == 10", defs, 5), 1);
  assert_int_equal(kr_preproc_eval("UNDEFINED_NAME", defs, 5), 0);   /* defined nowhere: 0 */
  assert_int_equal(kr_preproc_eval("N < 2 || 3 <= 2 || 1 != 1", defs, 5), 0);
  assert_int_equal(kr_preproc_eval("F(1)", defs, 5), -1);           /* a function-like macro: not evaluated */
  assert_int_equal(kr_preproc_eval("1 / 0", defs, 5), -1);
  assert_int_equal(kr_preproc_eval("SELF", defs, 5), -1);           /* expands to itself: no value */
  assert_int_equal(kr_preproc_eval("(1", defs, 5), -1);
  assert_int_equal(kr_preproc_eval("", defs, 5), -1);
}

static void preproc_branches_not_taken_are_not_parsed(void **state) {
  (void)state;
  const char *src =
    "#define USE_STAGE 1\n"
    "#define BLOCK 256\n"
    "#if 0\n"
    "this is not C {{{\n"
    "#endif\n"
    "#ifdef SMALL\n"
    "#define WIDTH 64\n"
    "#else\n"
    "#define WIDTH 1024\n"
    "#endif\n"
    "__global__ void scale(float *x, int n)\n"
    "#ifdef USE_STAGE\n"
    "{\n"
    "  __shared__ float s[BLOCK];\n"
    "#else\n"
    "{\n"
    "#endif\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "#if BLOCK >= 128 && defined(USE_STAGE)\n"
    "  if (i < n) x[i] = x[i] * 2.0f;\n"
    "#elif BLOCK > 0\n"
    "  if (i < n) x[i] = x[i] * 3.0f;\n"
    "#else\n"
    "  if (i < n) x[i] = x[i] * 4.0f;\n"
    "#endif\n"
    "}\n"
    "#ifndef USE_STAGE\n"
    "__global__ void never(float *x) { x[0] = 1.0f; }\n"
    "#endif\n"
    "#if CUDART_VERSION >= 11000 /* a toolkit header's: left as it is */\n"
    "__global__ void maybe(float *x) { x[0] = 2.0f; }\n"
    "#endif\n";
  Parsed *p = parse_text(src);
  assert_int_equal(p->diags->nerrors, 0);
  const char *v = p->tree->view;
  assert_int_equal(strlen(v), strlen(src));   /* offsets kept */
  assert_null(strstr(v, "{{{"));
  /* the decided groups' directives blanked, the unknown one's left */
  assert_ptr_equal(strstr(v, "#if"), strstr(v, "#if CUDART_VERSION"));
  assert_null(strstr(v, "#else"));
  assert_null(strstr(v, "#elif"));
  assert_ptr_equal(strstr(v, "#endif"), strrchr(v, '#'));
  assert_non_null(strstr(v, "* 2.0f"));
  assert_null(strstr(v, "* 3.0f"));
  assert_null(strstr(v, "* 4.0f"));
  assert_null(strstr(v, "WIDTH 64"));
  assert_non_null(strstr(v, "#define WIDTH 1024"));
  assert_non_null(kr_model_find(p->model, "scale"));
  assert_null(kr_model_find(p->model, "never"));
  assert_non_null(kr_model_find(p->model, "maybe"));
  parsed_free(p);
  /* The same text with the defines given on the command line: SMALL chosen, and `never` read once
   * USE_STAGE is undefined again. */
  const char *defs[] = {"SMALL", "USE_OTHER=1"};
  const char *undef = "#undef USE_STAGE\n";
  char *text = malloc(strlen(src) + strlen(undef) + 1);
  const char *at = strstr(src, "__global__ void scale");
  size_t head = (size_t)(at - src);
  memcpy(text, src, head);
  /* `never` needs USE_STAGE undefined before its #ifndef, and `scale` its #ifdef false too */
  strcpy(text + head, undef);
  strcat(text, at);
  Parsed *q = parse_defined(text, defs, 2);
  assert_int_equal(q->diags->nerrors, 0);
  assert_non_null(strstr(q->tree->view, "#define WIDTH 64"));
  assert_null(strstr(q->tree->view, "WIDTH 1024"));
  assert_null(strstr(q->tree->view, "__shared__"));
  assert_non_null(strstr(q->tree->view, "* 3.0f"));
  assert_non_null(kr_model_find(q->model, "never"));
  parsed_free(q);
  free(text);
}

static void preproc_local_header_leaves_its_names_unknown(void **state) {
  (void)state;
  /* after a local header, a name it may define is unknown: the group is left as it is */
  Parsed *p = parse_text("#include \"config.h\"\n#ifdef USE_FAST\n__global__ void a(float *x) { x[0] = 1; }\n"
                         "#endif\n#if 1\n__global__ void b(float *x) { x[0] = 2; }\n#endif\n");
  assert_int_equal(p->diags->nerrors, 0);
  assert_non_null(strstr(p->tree->view, "#ifdef USE_FAST"));
  assert_null(strstr(p->tree->view, "#if 1"));
  assert_non_null(kr_model_find(p->model, "a"));
  assert_non_null(kr_model_find(p->model, "b"));
  parsed_free(p);
  /* an unknown group whose branches split braces: its first branch read, no "missing '#endif'" */
  Parsed *q = parse_text("#include \"config.h\"\n__global__ void k(float *x)\n#ifdef USE_FAST\n{\n  x[0] = 1;\n"
                         "#else\n{\n  x[0] = 2;\n#endif\n  x[1] = 3;\n}\n");
  assert_int_equal(q->diags->nerrors, 0);
  assert_non_null(strstr(q->tree->view, "x[0] = 1"));
  assert_null(strstr(q->tree->view, "x[0] = 2"));
  assert_null(strstr(q->tree->view, "#ifdef"));
  assert_non_null(kr_model_find(q->model, "k"));
  parsed_free(q);
}

static void preproc_unbalanced_groups_are_errors_at_their_line(void **state) {
  (void)state;
  Parsed *p = parse_text("__global__ void k(float *x) {\n#ifdef A\n  x[0] = 1.0f;\n}\n");
  assert_true(p->diags->nerrors > 0);
  assert_string_equal(first_message(p->diags), "'#ifdef' has no matching '#endif'");
  assert_int_equal(p->diags->items.data[0].line, 2);
  parsed_free(p);
  Parsed *q = parse_text("__global__ void k(float *x) { x[0] = 1.0f; }\n#else\n#endif\n");
  assert_string_equal(first_message(q->diags), "'#else' without a matching '#if'");
  assert_int_equal(q->diags->items.data[0].line, 2);
  parsed_free(q);
  Parsed *r = parse_text("#if 1\n#else\n#elif 2\n#endif\n__global__ void k(float *x) { x[0] = 1.0f; }\n");
  assert_string_equal(first_message(r->diags), "'#elif' after '#else' (line 2)");
  parsed_free(r);
  /* a balanced file: directives in comments and continued lines do not count */
  Parsed *s = parse_text("/* #if 0\n */\n// #endif\n#define LONG(a) \\\n  (a)\n#if defined(X) \\\n  || 1\n"
                         "__global__ void k(float *x) { x[0] = LONG(1.0f); }\n#endif\n");
  assert_int_equal(s->diags->nerrors, 0);
  assert_non_null(kr_model_find(s->model, "k"));
  parsed_free(s);
}

static void host_bodies_left_out_but_what_device_code_or_loading_needs(void **state) {
  (void)state;
  const char *src =
    "constexpr int tile() { return 32; }\n"
    "__host__ __device__ float sq(float v) { return v * v; }\n"
    "__global__ void k(float *x) { x[threadIdx.x] = sq(tile()); }\n"
    "static int helper() { return 2; }\n"
    "static int seed() { return helper() + 1; }\n"
    "static int g = seed();\n"
    "__attribute__((constructor)) static void on_load() { g++; }\n"
    "namespace host { void report(int v) { (void)v; } }\n"
    "int main() { host::report(g); return 0; }\n";
  Parsed *p = parse_text(src);
  char *out = kr_model_drop_host_bodies(p->tree, src, strlen(src), NULL, 0, p->arena);
  assert_int_equal(strlen(out), strlen(src));
  assert_non_null(strstr(out, "constexpr int tile() { return 32; }"));
  assert_non_null(strstr(out, "float sq(float v) { return v * v; }"));
  assert_non_null(strstr(out, "static int helper() { return 2; }"));   /* seed() calls it */
  assert_non_null(strstr(out, "static int seed() { return helper() + 1; }"));   /* g's initialiser */
  assert_non_null(strstr(out, "on_load() { g++; }"));
  assert_non_null(strstr(out, "void report(int v) ;"));
  assert_non_null(strstr(out, "int main() ;"));
  const char *keep[] = {"main"};
  char *kept = kr_model_drop_host_bodies(p->tree, src, strlen(src), keep, 1, p->arena);
  assert_non_null(strstr(kept, "int main() { host::report(g); return 0; }"));
  assert_non_null(strstr(kept, "void report(int v) { (void)v; }"));   /* main calls it */
  parsed_free(p);
}

/* Calls are followed through a cycle (each function kept once) and past a function defined later;
 * what nothing kept calls is left out. */
static void host_bodies_follow_calls_through_cycles(void **state) {
  (void)state;
  const char *src =
    "static int ping(int n);\n"
    "static int pong(int n) { return n ? ping(n - 1) : last(); }\n"
    "static int ping(int n) { return pong(n); }\n"
    "static int last() { return 7; }\n"
    "static int unused() { return ping(1); }\n"
    "static int h = ping(3);\n";
  Parsed *p = parse_text(src);
  char *out = kr_model_drop_host_bodies(p->tree, src, strlen(src), NULL, 0, p->arena);
  assert_non_null(strstr(out, "static int pong(int n) { return n ? ping(n - 1) : last(); }"));
  assert_non_null(strstr(out, "static int ping(int n) { return pong(n); }"));
  assert_non_null(strstr(out, "static int last() { return 7; }"));
  assert_non_null(strstr(out, "static int unused() ;"));
  parsed_free(p);
}

/* A template list's entries split at the commas outside <> and (); a parameter's name is the
 * identifier that ends its entry, before a default. */
static void template_lists_bind_arguments_to_parameters(void **state) {
  (void)state;
  KrArena *a = kr_arena_new();
  const char *params = "typename T, int BS, class Acc = pair<int, float>, typename U=float";
  assert_int_equal(kr_type_template_param(params, "T", true), 0);
  assert_int_equal(kr_type_template_param(params, "BS", false), 1);
  assert_int_equal(kr_type_template_param(params, "BS", true), -1);   /* not a type parameter */
  assert_int_equal(kr_type_template_param(params, "Acc", true), 2);
  assert_int_equal(kr_type_template_param(params, "U", true), 3);
  assert_int_equal(kr_type_template_param(params, "float", false), -1);   /* a default, no name */
  assert_int_equal(kr_type_template_param(NULL, "T", false), -1);
  const char *args = "float ,  128, pair<int, float>";
  assert_string_equal(kr_type_template_arg(args, 0, a), "float");
  assert_string_equal(kr_type_template_arg(args, 1, a), "128");
  assert_string_equal(kr_type_template_arg(args, 2, a), "pair<int, float>");
  assert_null(kr_type_template_arg(args, 3, a));
  assert_null(kr_type_template_arg(args, -1, a));
  assert_null(kr_type_template_arg(NULL, 0, a));
  kr_arena_free(a);
}

static void incremental_reparse_gives_the_same_tree_as_a_fresh_parse(void **state) {
  (void)state;
  const char *a = "__global__ void k(float *x, int n) {\n  int i = threadIdx.x;\n  x[i] = 1;\n}\n"
                  "__global__ void j(float *y) { y[0] = 2; }\n";
  const char *b = "__global__ void k(float *__restrict__ x, int n) {\n  int i = threadIdx.x;\n"
                  "  for (int t = 0; t < n; t++) x[i] += __ldg(&x[t]);\n}\n"
                  "__global__ void j(float *y) { y[0] = 2; }\n";
  KrArena *ar = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSource sa, sb;
  kr_source_from_text(&sa, "a.cu", a, strlen(a), ar, d);
  kr_source_from_text(&sb, "b.cu", b, strlen(b), ar, d);
  KrTree *ta = kr_tree_parse(&sa, d);
  KrTree *inc = kr_tree_reparse(ta, &sb, d);
  KrTree *fresh = kr_tree_parse(&sb, d);
  KrBuf x = {0}, y = {0};
  kr_tree_sexp(inc, &x);
  kr_tree_sexp(fresh, &y);
  assert_string_equal(x.data, y.data);
  assert_int_equal(d->nerrors, 0);
  kr_buf_free(&x);
  kr_buf_free(&y);
  kr_tree_free(ta);
  kr_tree_free(inc);
  kr_tree_free(fresh);
  kr_diags_free(d);
  kr_arena_free(ar);
}

/* ---- Diff -------------------------------------------------------------------------------------- */

static void diff_shows_changed_lines_with_context(void **state) {
  (void)state;
  const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
  const char *b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\nten\n";
  KrBuf o = {0};
  kr_diff_unified(a, strlen(a), b, strlen(b), "a", "b", 3, &o);
  assert_string_equal(o.data, "--- a\n+++ b\n"
                              "@@ -2,8 +2,9 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n+ten\n");
  kr_buf_free(&o);
  /* Far-apart changes make two hunks, as GNU diff -u does. */
  const char *c = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
  const char *e = "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n";
  kr_diff_unified(c, strlen(c), e, strlen(e), "a", "b", 3, &o);
  assert_string_equal(o.data, "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n"
                              "@@ -9,4 +9,3 @@\n 9\n 10\n 11\n-12\n");
  kr_buf_free(&o);
  kr_diff_unified(a, strlen(a), a, strlen(a), "a", "b", 3, &o);
  assert_null(o.data);
}

static void diff_marks_a_missing_final_newline(void **state) {
  (void)state;
  KrBuf o = {0};
  kr_diff_unified("x\n", 2, "x", 1, "a", "b", 3, &o);
  assert_string_equal(o.data, "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n+x\n\\ No newline at end of file\n");
  kr_buf_free(&o);
}

/* ---- Corpus sweep ------------------------------------------------------------------------------- */

static void corpus_parses_and_models_as_json(void **state) {
  (void)state;
  const char *dir = KR_SOURCE_DIR "/tests/corpus";
  DIR *dd = opendir(dir);
  assert_non_null(dd);
  int files = 0;
  for (struct dirent *e; (e = readdir(dd));) {
    size_t n = strlen(e->d_name);
    if (n < 4 || strcmp(e->d_name + n - 3, ".cu") != 0) continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    KrArena *a = kr_arena_new();
    KrDiags *d = kr_diags_new();
    KrSource src;
    assert_int_equal(kr_source_read(&src, path, a, d), KR_OK);
    KrTree *t = kr_tree_parse(&src, d);
    bool broken = strncmp(e->d_name, "broken_", 7) == 0, host = strncmp(e->d_name, "host_error_", 11) == 0;
    if (broken != (d->nerrors > 0)) fail_msg("%s: %zu syntax errors (%s)", e->d_name, d->nerrors, first_message(d));
    if (host != (d->items.len > 0 && d->nerrors == 0)) fail_msg("%s: %zu diagnostics (%s)", e->d_name, d->items.len, first_message(d));
    KrBuf json = {0};
    kr_model_json(kr_model_new(t, a), &json);
    cJSON *j = cJSON_Parse(json.data);
    if (!j) fail_msg("%s: kernels --json is not valid JSON", e->d_name);
    cJSON_Delete(j);
    kr_buf_free(&json);
    kr_tree_free(t);
    kr_diags_free(d);
    kr_arena_free(a);
    files++;
  }
  closedir(dd);
  assert_true(files >= 25);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(arena_aligns_to_16),
    cmocka_unit_test(vector_keeps_elements_while_growing),
    cmocka_unit_test(json_strings_escape_quotes_and_control_bytes),
    cmocka_unit_test(binary_input_is_refused_with_its_offset),
    cmocka_unit_test(invalid_utf8_is_refused_but_valid_utf8_accepted),
    cmocka_unit_test(oversized_input_is_refused),
    cmocka_unit_test(diagnostic_shows_line_and_caret),
    cmocka_unit_test(missing_file_and_directory_are_reported),
    cmocka_unit_test(sha256_matches_the_standard_vectors),
    cmocka_unit_test(atomic_write_replaces_the_file_and_leaves_no_temporary),
    cmocka_unit_test(model_lists_kernels_with_their_attributes),
    cmocka_unit_test(a_launch_finds_its_explicit_specialization),
    cmocka_unit_test(model_reads_parameter_types),
    cmocka_unit_test(model_reads_shared_arrays_and_loops),
    cmocka_unit_test(model_reads_launch_sites),
    cmocka_unit_test(grammar_gaps_are_bridged_without_moving_offsets),
    cmocka_unit_test(host_grammar_gaps_are_bridged),
    cmocka_unit_test(preproc_conditions_evaluate_as_the_preprocessor_does),
    cmocka_unit_test(preproc_branches_not_taken_are_not_parsed),
    cmocka_unit_test(preproc_local_header_leaves_its_names_unknown),
    cmocka_unit_test(preproc_unbalanced_groups_are_errors_at_their_line),
    cmocka_unit_test(host_bodies_left_out_but_what_device_code_or_loading_needs),
    cmocka_unit_test(host_bodies_follow_calls_through_cycles),
    cmocka_unit_test(template_lists_bind_arguments_to_parameters),
    cmocka_unit_test(incremental_reparse_gives_the_same_tree_as_a_fresh_parse),
    cmocka_unit_test(diff_shows_changed_lines_with_context),
    cmocka_unit_test(diff_marks_a_missing_final_newline),
    cmocka_unit_test(corpus_parses_and_models_as_json),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
