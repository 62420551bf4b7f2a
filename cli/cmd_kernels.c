/* cli/cmd_kernels.c: `krewrite kernels FILE.cu [--json]` and `krewrite parse FILE.cu`. */
#include <string.h>

#include "cli/cli.h"
#include "frontend/nest.h"
#include "frontend/rows.h"

static const char *kernels_help =
  "usage: krewrite kernels FILE.cu [--json] [--nest] [-I DIR] [--define NAME[=V]]\n"
  "\n"
  "Lists each __global__ function (parameters with their types, __shared__ arrays, loops) and\n"
  "each <<<grid, block, shmem, stream>>> launch site in FILE.cu. With --json, one JSON object\n"
  "(shape in docs/cli.md). Syntax errors are reported as path:line:col and give exit 1.\n"
  "With --nest, each kernel lifted into its nest instead (parallel and reduction axes, guards,\n"
  "the accumulator, array references with their index forms); a kernel that cannot be lifted\n"
  "gets an error saying why, at the construct's line, and exit 1.\n"
  "\n"
  "The file's #if groups are decided with its own #defines and the --define macros given (a\n"
  "branch not taken is not read; docs/cli.md says what is left undecided).\n"
  KR_CLI_BUILD_HELP;

static const char *parse_help =
  "usage: krewrite parse FILE.cu [--define NAME[=V]]\n"
  "\n"
  "Prints the tree-sitter syntax tree of FILE.cu, one node per line with field names and\n"
  "line:col ranges, for debugging passes. Syntax errors go to stderr and give exit 1.\n"
  KR_CLI_BUILD_HELP;

/* Reads and parses `path`; on a read failure prints why and returns NULL. */
static KrTree *load(const char *path, const KrBuildFlags *bf, KrArena *arena, KrDiags *d, KrSource *src) {
  if (kr_source_read(src, path, arena, d) != KR_OK) return NULL;
  kr_source_use(src, bf);
  if (src->len == 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, path, 0, 0, "empty file");
    return NULL;
  }
  KrTree *t = kr_tree_parse(src, d);
  if (!t) kr_diag_pos(d, KR_DIAG_ERROR, path, 0, 0, "the parser failed");
  return t;
}

/* --nest: every kernel's nest, or the reason it has none. */
static void nests(const KrModel *m, const KrTree *t, bool json, KrArena *arena, KrDiags *d, KrBuf *b) {
  if (json) kr_buf_puts(b, "{\"nests\": [");
  size_t shown = 0;
  for (size_t i = 0; i < m->kernels.len; i++) {
    const KrKernel *k = &m->kernels.data[i];
    /* A row reduction (frontend/rows.h) is shown as its row nest as well; a kernel that is neither
     * gets the nest's reason, and the row nest's as a note. */
    KrDiags *rd = kr_diags_new();
    const KrRows *r = json ? NULL : kr_rows_lift(t, k, arena, rd);
    const KrNest *n = kr_nest_lift(t, k, arena, r ? rd : d);
    if (!json && !n && !r) {
      for (size_t j = 0; j < rd->items.len; j++) {
        KrDiag x = rd->items.data[j];
        x.severity = KR_DIAG_NOTE;
        x.message = kr_arena_strdup(d->arena, x.message);
        x.path = x.path ? kr_arena_strdup(d->arena, x.path) : NULL;
        x.source_line = x.source_line ? kr_arena_strdup(d->arena, x.source_line) : NULL;
        kr_vec_push(d->arena, &d->items, x);
      }
    }
    kr_diags_free(rd);
    if (r) kr_rows_text(r, t, b);
    if (r && !n) {
      shown++;
      continue;
    }
    if (!n) continue;
    if (json) {
      kr_buf_puts(b, shown ? ",\n  " : "\n  ");
      kr_nest_json(n, t, b);
    } else {
      kr_nest_text(n, t, b);
    }
    shown++;
  }
  if (json) kr_buf_puts(b, "]}\n");
}

static int run(int argc, char **argv, bool tree_dump) {
  const char *help = tree_dump ? parse_help : kernels_help;
  if (kr_cli_wants_help(argc, argv)) {
    fputs(help, stdout);
    return KR_EXIT_OK;
  }
  const char *path = NULL;
  bool json = false, nest = false;
  KrArena *arena = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrBuildFlags bf = {0};
  for (int i = 1; i < argc; i++) {
    int bflag = kr_cli_build_flag(argc, argv, &i, &bf, arena, d);
    if (bflag < 0) {
      kr_cli_print_diags(d);
      kr_diags_free(d);
      kr_arena_free(arena);
      return KR_EXIT_USAGE;
    }
    if (bflag) continue;
    if (!tree_dump && strcmp(argv[i], "--json") == 0) json = true;
    else if (!tree_dump && strcmp(argv[i], "--nest") == 0) nest = true;
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "krewrite: unknown option '%s'\n%s", argv[i], help);
      kr_diags_free(d);
      kr_arena_free(arena);
      return KR_EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "krewrite: one file at a time ('%s' and '%s' given)\n", path, argv[i]);
      kr_diags_free(d);
      kr_arena_free(arena);
      return KR_EXIT_USAGE;
    } else path = argv[i];
  }
  if (!path) {
    fputs(help, stderr);
    kr_diags_free(d);
    kr_arena_free(arena);
    return KR_EXIT_USAGE;
  }
  KrSource src;
  int rc = KR_EXIT_OK;
  KrTree *t = load(path, &bf, arena, d, &src);
  if (!t) {
    rc = d->nerrors && src.text ? KR_EXIT_INPUT : KR_EXIT_USAGE;
    goto out;
  }
  KrBuf b = {0};
  if (tree_dump) kr_tree_sexp(t, &b);
  else if (d->nerrors == 0) {
    KrModel *m = kr_model_new(t, arena);
    if (nest) nests(m, t, json, arena, d, &b);
    else if (json) kr_model_json(m, &b);
    else kr_model_text(m, &b);
  }
  if (b.len) fwrite(b.data, 1, b.len, stdout);
  kr_buf_free(&b);
  if (d->nerrors) rc = KR_EXIT_INPUT;
  kr_tree_free(t);
out:
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(arena);
  return rc;
}

int kr_cmd_kernels(int argc, char **argv) { return run(argc, argv, false); }
int kr_cmd_parse(int argc, char **argv) { return run(argc, argv, true); }
