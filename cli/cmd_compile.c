/* cli/cmd_compile.c: `krewrite compile FILE.cu [--arch sm_90] [--json]`: nvcc to a cubin (through
 * the cache, backend/nvcc.h) and the ptxas resources of each kernel. */
#include <stdlib.h>
#include <string.h>

#include "backend/nvcc.h"
#include "cli/cli.h"

int kr_cmd_compile(int argc, char **argv);

static const char *compile_help =
  "usage: krewrite compile FILE.cu [--arch sm_XX] [--json] [options]\n"
  "\n"
  "Compiles FILE.cu with nvcc (-cubin -std=c++17 -O3 -Xptxas -v -lineinfo) and prints, for each\n"
  "kernel, what ptxas reports: registers, barriers, static shared memory, constant bank 0, stack\n"
  "frame and spill stores/loads in bytes. nvcc's errors and warnings are printed as\n"
  "FILE:line:col diagnostics. Results are cached by content (see --no-cache).\n"
  "  --arch sm_XX      target architecture (default sm_90)\n"
  "  --json            print one JSON object: file, ok, resources (or null), diagnostics\n"
  "  -o OUT.cubin      also write the cubin\n"
  "  --flag FLAG       an extra nvcc flag, e.g. --flag -maxrregcount=32 (repeatable)\n"
  "  --timeout S       time limit for nvcc in seconds (default 120)\n"
  "  --no-cache        neither read nor write the cubin cache\n"
  KR_CLI_BUILD_HELP
  "Environment: CUDACXX (nvcc to use), XDG_CACHE_HOME (cache: $XDG_CACHE_HOME/krewrite/cubin).\n"
  "Exit status: 0 compiled, 1 the source did not compile, 2 usage, missing file or no nvcc.\n";

typedef struct CompileArgs {
  const char *path, *out;
  bool json;
  KrNvccOptions opt;
  KrVec(const char *) flags;
  KrBuildFlags build;
} CompileArgs;

static int parse_args(int argc, char **argv, CompileArgs *c, KrArena *a, KrDiags *d) {
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    int bflag = kr_cli_build_flag(argc, argv, &i, &c->build, a, d);
    if (bflag < 0) return KR_EXIT_USAGE;
    if (bflag) continue;
    if (strcmp(s, "--json") == 0) c->json = true;
    else if (strcmp(s, "--no-cache") == 0) c->opt.no_cache = true;
    else if (strcmp(s, "--arch") == 0 && val) c->opt.arch = argv[++i];
    else if (strcmp(s, "-o") == 0 && val) c->out = argv[++i];
    else if (strcmp(s, "--flag") == 0 && val) kr_vec_push(a, &c->flags, (const char *)argv[++i]);
    else if (strcmp(s, "--timeout") == 0 && val && atof(val) > 0) c->opt.timeout_s = atof(argv[++i]);
    else if (s[0] == '-' && s[1]) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "compile: unknown option or missing value: '%s'", s);
      return KR_EXIT_USAGE;
    } else if (!c->path) c->path = s;
    else {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "compile: one file at a time ('%s' and '%s' given)",
                  c->path, s);
      return KR_EXIT_USAGE;
    }
  }
  if (!c->path) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "compile: no FILE.cu given (see krewrite compile --help)");
    return KR_EXIT_USAGE;
  }
  if (c->opt.arch && strncmp(c->opt.arch, "sm_", 3) != 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "compile: --arch takes a real architecture such as "
                "sm_90, not '%s'", c->opt.arch);
    return KR_EXIT_USAGE;
  }
  c->opt.flags = c->flags.data;
  c->opt.nflags = c->flags.len;
  c->opt.build = &c->build;
  return KR_EXIT_OK;
}

static const char *severity_name(KrSeverity s) {
  return s == KR_DIAG_ERROR ? "error" : s == KR_DIAG_WARNING ? "warning" : "note";
}

static void json_diags(const KrDiags *d, KrBuf *b) {
  kr_buf_puts(b, "[");
  for (size_t i = 0; i < d->items.len; i++) {
    const KrDiag *x = &d->items.data[i];
    kr_buf_printf(b, "%s{\"severity\": \"%s\", \"path\": ", i ? ", " : "", severity_name(x->severity));
    kr_buf_json_str(b, x->path);
    kr_buf_printf(b, ", \"line\": %u, \"col\": %u, \"message\": ", x->line, x->col);
    kr_buf_json_string(b, x->message, strlen(x->message));
    kr_buf_puts(b, "}");
  }
  kr_buf_puts(b, "]");
}

static void print_result(const CompileArgs *c, const KrCubin *cubin, bool ok, const KrDiags *d) {
  KrBuf b = {0};
  if (c->json) {
    kr_buf_puts(&b, "{\"file\": ");
    kr_buf_json_string(&b, c->path, strlen(c->path));
    kr_buf_printf(&b, ", \"ok\": %s, \"resources\": ", ok ? "true" : "false");
    if (ok) kr_cubin_resources_json(cubin, &b);
    else kr_buf_puts(&b, "null");
    kr_buf_puts(&b, ", \"diagnostics\": ");
    json_diags(d, &b);
    kr_buf_puts(&b, "}\n");
  } else if (ok) {
    kr_buf_printf(&b, "%s: %s, %s, %zu-byte cubin%s\n", c->path, cubin->arch, cubin->nvcc_version,
                  cubin->size, cubin->from_cache ? " (cached)" : "");
    kr_cubin_resources_text(cubin, &b);
  }
  if (b.len) fwrite(b.data, 1, b.len, stdout);
  kr_buf_free(&b);
}

int kr_cmd_compile(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(compile_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *arena = kr_arena_new();
  KrDiags *d = kr_diags_new();
  CompileArgs c = {0};
  KrSource src = {0};
  const char *nvcc;
  int rc = parse_args(argc, argv, &c, arena, d);
  if (rc != KR_EXIT_OK) goto out;
  if (kr_source_read(&src, c.path, arena, d) != KR_OK) {
    rc = src.text ? KR_EXIT_INPUT : KR_EXIT_USAGE;  /* unreadable vs. not a text file */
    goto out;
  }
  rc = KR_EXIT_USAGE;  /* no nvcc is the environment's trouble, not the input's */
  if (kr_nvcc_find(&nvcc, arena, d) != KR_OK) goto out;
  KrCubin cubin;
  bool ok = kr_nvcc_compile(c.path, src.text, src.len, &c.opt, arena, &cubin, d) == KR_OK;
  rc = ok ? KR_EXIT_OK : KR_EXIT_INPUT;
  if (ok && c.out && kr_cli_emit(c.out, cubin.data, cubin.size, d) != KR_EXIT_OK) rc = KR_EXIT_USAGE;
  print_result(&c, &cubin, ok, d);
  if (c.json) {  /* the diagnostics are in the JSON; stderr gets them only when not */
    kr_diags_free(d);
    d = kr_diags_new();
  }
out:
  kr_cli_print_diags(d);
  kr_diags_free(d);
  kr_arena_free(arena);
  return rc;
}
