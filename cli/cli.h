/* cli/cli.h: what the subcommand files of cli/ share: exit codes, the command table entry and
 * small helpers for reading files and printing diagnostics. */
#ifndef KR_CLI_H
#define KR_CLI_H

#include "frontend/model.h"

enum { KR_EXIT_OK = 0, KR_EXIT_INPUT = 1, KR_EXIT_USAGE = 2 };

typedef struct KrCommand {
  const char *name;
  int (*run)(int argc, char **argv);
} KrCommand;

int kr_cmd_kernels(int argc, char **argv);
int kr_cmd_parse(int argc, char **argv);
int kr_cmd_apply(int argc, char **argv);
int kr_cmd_passes(int argc, char **argv);
int kr_cmd_replay(int argc, char **argv);
int kr_cmd_verify(int argc, char **argv);
int kr_cmd_bench(int argc, char **argv);
int kr_cmd_compile(int argc, char **argv);
int kr_cmd_optimize(int argc, char **argv);
int kr_cmd_profile(int argc, char **argv);
int kr_cmd_report(int argc, char **argv);

/* Prints the collected diagnostics to stderr. */
void kr_cli_print_diags(const KrDiags *d);
/* True when argv[i] is -h or --help. */
bool kr_cli_wants_help(int argc, char **argv);
/* True when every non-NULL path names a readable regular file; otherwise reports
 * "PATH: error: cannot read the WHAT: REASON" for the first that does not. Commands call it
 * before any work, so a missing file is the usage trouble (exit 2) docs/cli.md says it is,
 * whichever command was given it. `paths` and `whats` are NULL-terminated by `n`. */
bool kr_cli_files_readable(size_t n, const char *const *paths, const char *const *whats, KrDiags *d);
/* A KrRecipePrint that writes the recipe's print() lines to stderr: stdout carries the rewritten
 * source or the report. */
void kr_cli_recipe_print(void *ctx, const char *line, size_t len);
/* The source's build flags, which every command that reads a .cu takes the way nvcc does (recipe
 * parameters keep -D): `-I DIR` / `-IDIR` (an include folder) and `--define NAME[=VALUE]` /
 * `--define=NAME[=VALUE]` (a macro of the source). At argv[*i]: 1 when it was one (*i moved past
 * its value), 0 when not, -1 on a bad value (reported into d). */
int kr_cli_build_flag(int argc, char **argv, int *i, KrBuildFlags *f, KrArena *arena, KrDiags *d);
/* Help lines for the two flags. */
#define KR_CLI_BUILD_HELP                                                                          \
  "  -I DIR              an include folder of the source (as nvcc's -I; the source's own folder\n" \
  "                      is searched first)\n"                                                   \
  "  --define NAME[=V]   a macro of the source, for its #if groups, nvcc and the emulator (not\n" \
  "                      -D, which sets a recipe's parameter)\n"

/* Writes `data` to `path` atomically, or to stdout when path is NULL or "-". */
int kr_cli_emit(const char *path, const char *data, size_t len, KrDiags *d);

#endif
