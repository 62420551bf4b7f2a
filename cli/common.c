/* cli/common.c: helpers the subcommands share. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

void kr_cli_print_diags(const KrDiags *d) {
  KrBuf b = {0};
  kr_diags_format(d, &b);
  if (b.len) fputs(b.data, stderr);
  kr_buf_free(&b);
}

bool kr_cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) return true;
  return false;
}

int kr_cli_build_flag(int argc, char **argv, int *i, KrBuildFlags *f, KrArena *arena, KrDiags *d) {
  const char *s = argv[*i], *val = NULL, *flag = NULL;
  if (strcmp(s, "-I") == 0 || strcmp(s, "--define") == 0) {
    flag = s;
    if (*i + 1 >= argc) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s needs a value (%s)", s, s[1] == 'I' ? "-I DIR" : "--define NAME[=VALUE]");
      return -1;
    }
    val = argv[++*i];
  } else if (strncmp(s, "-I", 2) == 0) {
    flag = "-I", val = s + 2;
  } else if (strncmp(s, "--define=", 9) == 0) {
    flag = "--define", val = s + 9;
  } else {
    return 0;
  }
  KrStatus st = flag[1] == 'I' ? kr_build_include(f, val, "-I", arena, d) : kr_build_define(f, val, "--define", arena, d);
  return st == KR_OK ? 1 : -1;
}

int kr_cli_emit(const char *path, const char *data, size_t len, KrDiags *d) {
  if (!path || strcmp(path, "-") == 0) {
    if (len && fwrite(data, 1, len, stdout) != len) return KR_EXIT_USAGE;
    return fflush(stdout) == 0 ? KR_EXIT_OK : KR_EXIT_USAGE;
  }
  return kr_file_write_atomic(path, data, len, d) == KR_OK ? KR_EXIT_OK : KR_EXIT_USAGE;
}

bool kr_cli_files_readable(size_t n, const char *const *paths, const char *const *whats, KrDiags *d) {
  for (size_t i = 0; i < n; i++) {
    if (!paths[i]) continue;
    FILE *f = fopen(paths[i], "rb");
    struct stat st;
    const char *why = NULL;
    if (!f) why = strerror(errno);
    else if (fstat(fileno(f), &st) != 0) why = strerror(errno);
    else if (S_ISDIR(st.st_mode)) why = "it is a directory, not a file";
    if (f) fclose(f);
    if (why) {
      kr_diag_pos(d, KR_DIAG_ERROR, paths[i], 0, 0, "cannot read the %s: %s", whats[i], why);
      return false;
    }
  }
  return true;
}

void kr_cli_recipe_print(void *ctx, const char *line, size_t len) {
  (void)ctx;
  fwrite(line, 1, len, stderr);
}
