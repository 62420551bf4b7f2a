/* recipes/recipe.h: running a Lua recipe over a CUDA file. The recipe sees the `kr` module
 * (recipes/kr_module.c) in the sandbox (recipes/sandbox.c); each k:apply / k:try runs a pass
 * through the driver and leaves a record. The records make the audit log and drive replay. */
#ifndef KR_RECIPE_H
#define KR_RECIPE_H

#include "passes/pass.h"
#include "recipes/sandbox.h"

/* A -D name=value definition; the value is typed as the recipe sees it. */
typedef struct KrDefine {
  const char *name;
  KrRawScalar value;
  bool used;             /* read by kr.param or kr.params */
} KrDefine;

/* Receives one line a recipe printed: its values as tostring shows them, tab-separated, ending
 * in a newline. */
typedef void (*KrRecipePrint)(void *ctx, const char *line, size_t len);

typedef struct KrRecipeOptions {
  KrLuaLimits limits;
  KrVec(KrDefine) defines;
  KrRecipePrint print;   /* where the recipe's print() goes; NULL (the default): nowhere */
  void *print_ctx;
  const KrBuildFlags *build;   /* the source's defines, for its conditionals (NULL: none) */
  bool keep_doc;         /* keep the document the recipe left in KrRecipeRun.doc */
} KrRecipeOptions;

typedef struct KrRecipeRun {
  KrArena *arena;        /* owns everything below */
  const char *recipe_path, *recipe_text;
  const char *input_path, *input_text;
  uint32_t input_len;
  const char *output_text;
  uint32_t output_len;
  bool allow_lowering;
  KrVec(KrDefine) defines;
  KrBuildFlags build;           /* the source's defines the run parsed it with (logged: input.defines) */
  KrVec(KrPassRecord) records;
  KrVec(const char *) skipped;  /* "pass on kernel: reason" for each k:try that did not apply */
  /* With KrRecipeOptions.keep_doc, the document after the recipe, its schedules included, for more
   * passes through the driver (kr_doc_copy, kr_doc_run_pass); owned by the run; else NULL. */
  KrDoc *doc;
} KrRecipeRun;

void kr_recipe_options_init(KrRecipeOptions *o, KrArena *arena);
/* Parses "name=value" for -D: integers, numbers, true/false, anything else a string. */
KrStatus kr_recipe_define(KrRecipeOptions *o, KrArena *arena, const char *arg, KrDiags *diags);

/* Runs the recipe over the input text. On success *out holds the run (free it with
 * kr_recipe_run_free) and its output text. Errors name recipe.lua:LINE and the pass's reason. */
KrStatus kr_recipe_apply(const char *recipe_path, const char *recipe_text, size_t recipe_len,
                         const char *input_path, const char *input_text, size_t input_len,
                         const KrRecipeOptions *opt, KrRecipeRun **out, KrDiags *diags);
void kr_recipe_run_free(KrRecipeRun *self);
/* How many times kr_recipe_apply was called in this process: `optimize` records its own count, so
 * that a test can hold it to one apply a candidate. */
unsigned long kr_recipe_applies(void);
/* Reads `params`, the Lua table a recipe passes to k:apply ("{ block = {64, 64}, k = 16 }"), into
 * the raw arguments k:apply hands the driver for pass `pass` (kr_pass_validate, kr_doc_run_pass),
 * from `arena`. It runs in the sandbox, so the text is any Lua expression; KR_ERR with the error
 * in diags when it is not a table of parameters. */
KrStatus kr_recipe_args(const char *pass, const char *params, KrArena *arena, KrRawArgs *out,
                        KrDiags *diags);

/* The audit log (`--log run.json`): tool version, input and output sha256, the recipe text and
 * definitions, and for each pass its name, kernel, parameters, precision, assumptions, edits and
 * diff (its texts named by kr_recipe_text_name). The input text is embedded, so a log replays on
 * its own. */
void kr_recipe_log_json(const KrRecipeRun *self, KrBuf *out);
/* How a diff names a text of a run, appended to out: the input file's name without its folders,
 * then the step, "kernel.cu, original" (step 0) or "kernel.cu, after pass 2 (ldg)" (after the
 * recipe's second applied pass, `pass`; counted from 1, as the driver counts passes in its
 * diagnostics). The audit log's diffs and the report's pages use it. */
void kr_recipe_text_name(const char *input_path, size_t step, const char *pass, KrBuf *out);
/* Parses `text` (len bytes, read from `path`) as one JSON document, of which only white space may
 * follow. When it is not JSON, adds "PATH:LINE:COL: error: not JSON: syntax error at byte N;
 * expected WHAT" (or, for an empty file, "empty file, not JSON: expected WHAT") and returns
 * NULL. The caller owns the result (cJSON_Delete). Shared by replay and `krewrite report`. */
struct cJSON *kr_recipe_json_parse(const char *path, const char *text, size_t len,
                                   const char *what, KrDiags *diags);
/* Rebuilds the output of a logged run by re-applying each recorded pass with its recorded
 * parameters to the embedded input; checks input and output sha256. */
KrStatus kr_recipe_replay(const char *log_path, const char *log_text, size_t len, KrBuf *out,
                          KrDiags *diags);

/* ---- The kr module (recipes/kr_module.c) -------------------------------------------------------- */
typedef struct KrRecipeState KrRecipeState;
void kr__module_open(lua_State *L, KrRecipeState *st);
/* The error k:apply raises when kr_doc_run_pass gave `st` for `pass` on `kernel` with the
 * diagnostics `d`, from `arena`: KR_SKIP "pass 'P' does not apply to kernel 'K': REASONS", KR_ERR
 * the reasons alone, each "file:12:9: reason", joined by "; " (search/prune.h reads the first). */
const char *kr_recipe_pass_failure(const char *pass, const char *kernel, KrStatus st, const KrDiags *d,
                                   KrArena *arena);

#endif
