/* cli/cmd_apply.c: `krewrite apply`, `krewrite passes` and `krewrite replay`. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diff.h"
#include "cli/cli.h"
#include "recipes/recipe.h"

static const char *apply_help =
  "usage: krewrite apply RECIPE.lua FILE.cu [-o OUT] [--diff] [--log RUN.json] [-D name=value]...\n"
  "                     [-I DIR]... [--define NAME[=V]]...\n"
  "\n"
  "Runs the Lua recipe over FILE.cu and prints the rewritten source (or writes it to OUT).\n"
  "  -o OUT                write the result to OUT (atomically) instead of stdout\n"
  "  --diff                print a unified diff against FILE.cu instead of the source\n"
  "  --log RUN.json        write the audit log: input and output sha256, the recipe, and each\n"
  "                        pass's parameters, assumptions, precision, edits and diff\n"
  "  -D name=value         a recipe parameter, read in the recipe with kr.param(\"name\", default);\n"
  "                        typed: integers, numbers, true/false, else a string\n"
  "  --max-instructions N  Lua instruction limit (default 50000000)\n"
  "  --max-memory MIB      Lua memory limit in MiB (default 64)\n"
  "  --max-seconds S       wall-clock limit for the recipe (default 10)\n"
  KR_CLI_BUILD_HELP
  "A recipe with no passes reproduces FILE.cu byte for byte. Nothing is written when the recipe\n"
  "fails. Exit status: 0 success, 1 the recipe or the input had errors, 2 usage or a missing file.\n";

/* Last resort behind the sandbox's own limits: a recipe stuck inside one long C call (where the
 * Lua hook cannot fire) is stopped here. Only async-signal-safe calls. */
static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "krewrite: error: the recipe overran its wall-clock limit inside a "
                            "library call; nothing was written\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  _exit(KR_EXIT_INPUT);
}

typedef struct ApplyArgs {
  const char *recipe, *input, *out, *log;
  bool diff;
  KrRecipeOptions opt;
  KrBuildFlags build;
} ApplyArgs;

static bool parse_number(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return *s && !*end && *out > 0;
}

static int parse_apply_args(int argc, char **argv, ApplyArgs *a, KrArena *arena, KrDiags *d) {
  kr_recipe_options_init(&a->opt, arena);
  a->opt.print = kr_cli_recipe_print;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    double num;
    int bflag = kr_cli_build_flag(argc, argv, &i, &a->build, arena, d);
    if (bflag < 0) return KR_EXIT_USAGE;
    if (bflag) continue;
    if (strcmp(s, "--diff") == 0) a->diff = true;
    else if ((strcmp(s, "-o") == 0 || strcmp(s, "--log") == 0) && val) {
      *(s[1] == 'o' ? &a->out : &a->log) = val;
      i++;
    } else if (strcmp(s, "-D") == 0 && val) {
      if (kr_recipe_define(&a->opt, arena, val, d) != KR_OK) return KR_EXIT_USAGE;
      i++;
    } else if (strncmp(s, "-D", 2) == 0 && s[2]) {
      if (kr_recipe_define(&a->opt, arena, s + 2, d) != KR_OK) return KR_EXIT_USAGE;
    } else if (strcmp(s, "--max-instructions") == 0 && val && parse_number(val, &num)) {
      a->opt.limits.max_instructions = (uint64_t)num;
      i++;
    } else if (strcmp(s, "--max-memory") == 0 && val && parse_number(val, &num)) {
      a->opt.limits.max_memory = (size_t)(num * 1024 * 1024);
      i++;
    } else if (strcmp(s, "--max-seconds") == 0 && val && parse_number(val, &num)) {
      a->opt.limits.max_seconds = num;
      i++;
    } else if (s[0] == '-' && s[1]) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "apply: unknown option or missing value: '%s'", s);
      return KR_EXIT_USAGE;
    } else if (!a->recipe) a->recipe = s;
    else if (!a->input) a->input = s;
    else {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "apply: unexpected argument '%s'", s);
      return KR_EXIT_USAGE;
    }
  }
  if (!a->recipe || !a->input) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "apply needs RECIPE.lua and FILE.cu (see krewrite apply --help)");
    return KR_EXIT_USAGE;
  }
  a->opt.build = &a->build;
  return KR_EXIT_OK;
}

/* Reads the recipe and the input; a missing or unreadable file is usage trouble (exit 2), a file
 * that is not text is bad input (exit 1). */
static int read_inputs(const ApplyArgs *a, KrArena *arena, KrSource *recipe, KrSource *input,
                       KrDiags *d) {
  if (kr_source_read(recipe, a->recipe, arena, d) != KR_OK)
    return recipe->text ? KR_EXIT_INPUT : KR_EXIT_USAGE;
  if (kr_source_read(input, a->input, arena, d) != KR_OK)
    return input->text ? KR_EXIT_INPUT : KR_EXIT_USAGE;
  if (input->len == 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, a->input, 0, 0, "empty file");
    return KR_EXIT_INPUT;
  }
  return KR_EXIT_OK;
}

static int emit_run(const ApplyArgs *a, const KrRecipeRun *run, KrDiags *d) {
  int rc = KR_EXIT_OK;
  if (a->log) {
    KrBuf log = {0};
    kr_recipe_log_json(run, &log);
    if (kr_file_write_atomic(a->log, log.data, log.len, d) != KR_OK) rc = KR_EXIT_USAGE;
    kr_buf_free(&log);
    if (rc) return rc;
  }
  if (a->out) rc = kr_cli_emit(a->out, run->output_text, run->output_len, d);
  if (rc) return rc;
  if (a->diff) {
    KrBuf diff = {0};
    kr_diff_unified(run->input_text, run->input_len, run->output_text, run->output_len, a->input,
                    a->out ? a->out : "(rewritten)", 3, &diff);
    rc = kr_cli_emit(NULL, diff.data ? diff.data : "", diff.len, d);
    kr_buf_free(&diff);
  } else if (!a->out) {
    rc = kr_cli_emit(NULL, run->output_text, run->output_len, d);
  }
  return rc;
}

int kr_cmd_apply(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs(apply_help, stdout);
    return KR_EXIT_OK;
  }
  KrArena *arena = kr_arena_new();
  KrDiags *d = kr_diags_new();
  ApplyArgs a = {0};
  KrSource recipe = {0}, input = {0};
  KrRecipeRun *run = NULL;
  int rc = parse_apply_args(argc, argv, &a, arena, d);
  if (rc == KR_EXIT_OK) rc = read_inputs(&a, arena, &recipe, &input, d);
  if (rc == KR_EXIT_OK) {
    signal(SIGALRM, on_alarm);
    alarm((unsigned)a.opt.limits.max_seconds + 5);
    if (kr_recipe_apply(a.recipe, recipe.text, recipe.len, a.input, input.text, input.len, &a.opt,
                        &run, d) != KR_OK)
      rc = KR_EXIT_INPUT;
    alarm(0);
  }
  if (rc == KR_EXIT_OK) rc = emit_run(&a, run, d);
  kr_cli_print_diags(d);
  kr_recipe_run_free(run);
  kr_diags_free(d);
  kr_arena_free(arena);
  return rc;
}

/* ---- passes ------------------------------------------------------------------------------------ */

int kr_cmd_passes(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv)) {
    fputs("usage: krewrite passes [NAME]\n\nLists the passes, or describes one: parameters with "
          "types and defaults, precision, assumptions.\n", stdout);
    return KR_EXIT_OK;
  }
  KrBuf b = {0};
  int rc = KR_EXIT_OK;
  if (argc < 2) {
    for (size_t i = 0; i < kr_pass_count(); i++) {
      const KrPass *p = kr_pass_at(i);
      kr_buf_printf(&b, "%-18s %-7s %s\n", p->name,
                    kr_precision_name(p->precision), p->summary);
    }
  } else {
    const KrPass *p = kr_pass_find(argv[1]);
    if (p) kr_pass_describe(p, &b);
    else {
      KrArena *a = kr_arena_new();
      fprintf(stderr, "krewrite: error: no pass '%s' (passes: %s)\n", argv[1], kr_pass_names(a));
      kr_arena_free(a);
      rc = KR_EXIT_USAGE;
    }
  }
  if (b.len) fwrite(b.data, 1, b.len, stdout);
  kr_buf_free(&b);
  return rc;
}

/* ---- replay ------------------------------------------------------------------------------------ */

int kr_cmd_replay(int argc, char **argv) {
  if (kr_cli_wants_help(argc, argv) || argc < 2) {
    fputs("usage: krewrite replay RUN.json [-o OUT]\n\nRebuilds the output of a logged run (apply "
          "--log) byte for byte by re-applying each recorded pass with its recorded parameters to "
          "the input embedded in the log; fails if any sha256 differs.\n",
          argc < 2 ? stderr : stdout);
    return argc < 2 ? KR_EXIT_USAGE : KR_EXIT_OK;
  }
  const char *out = argc >= 4 && strcmp(argv[2], "-o") == 0 ? argv[3] : NULL;
  KrArena *arena = kr_arena_new();
  KrDiags *d = kr_diags_new();
  char *text;
  size_t len;
  KrBuf b = {0};
  int rc = KR_EXIT_USAGE;
  if (kr_file_read(argv[1], arena, &text, &len, d) == KR_OK) {
    rc = kr_recipe_replay(argv[1], text, len, &b, d) == KR_OK ? KR_EXIT_OK : KR_EXIT_INPUT;
    if (rc == KR_EXIT_OK) rc = kr_cli_emit(out, b.data ? b.data : "", b.len, d);
  }
  kr_cli_print_diags(d);
  kr_buf_free(&b);
  kr_diags_free(d);
  kr_arena_free(arena);
  return rc;
}
