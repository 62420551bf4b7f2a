/* search/llm_proposer.c: one round of the LLM proposer (search/llm_proposer.h). */
#include "search/llm_proposer.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "base/proc.h"
#include "frontend/model.h"
#include "frontend/nest.h"
#include "frontend/rows.h"
#include "frontend/tree.h"
#include "passes/pass.h"
#include "recipes/recipe.h"
#include "search/llm.h"
#include "search/prune.h"

static const char *SYSTEM_PROMPT =
  "You are the proposer of krewrite, a source-to-source compiler that rewrites CUDA kernels "
  "with a catalogue of verified passes. Every rewrite is checked against the original kernel on "
  "random inputs and timed; you propose what to try next.\n"
  "\n"
  "Reply with JSON only, exactly in this format:\n"
  "{\"ideas\": [{\"reason\": \"one line: why this should help\", \"recipe\": \"Lua recipe text\"}]}\n"
  "Each recipe is a complete Lua program that starts from the ORIGINAL kernel source (repeat the "
  "lines of an earlier recipe you build on). The API:\n"
  "  local k = kr.kernel(\"NAME\")        -- a kernel of the source, by name\n"
  "  k:apply(\"PASS\", { param = value })  -- run a pass; an error stops the recipe\n"
  "  k:try(\"PASS\", { param = value })    -- run a pass; returns false instead of failing\n"
  "  kr.allow_lowering()                  -- opt in to precision-lowering passes (if allowed)\n"
  "Only passes of the catalogue exist. Recipes run in a sandbox: no os, io or require.\n"
  "Schedule passes (tile, register_tile, double_buffer, ...) apply to a kernel whose nest lifts: "
  "each one adds to the kernel's schedule and the kernel is re-emitted from its nest, so they "
  "compose in any order; text passes come after the schedule passes of a kernel. For example:\n"
  "  k:apply(\"tile\", { block = {128, 128}, k = 16 })\n"
  "  k:apply(\"register_tile\", { thread = {8, 8} })\n"
  "  k:apply(\"double_buffer\", { stages = 2 })\n"
  "On the tensor cores (fp32 operands lower precision, tf32 or the fp32-grade 3xtf32: kr.allow_lowering() "
  "first; bf16/fp16 operands need no opt-in), after tile and before double_buffer:\n"
  "  k:apply(\"tensor_core\", { precision = \"3xtf32\", api = \"mma\", warp = {64, 64} })\n"
  "A convolution (a nest with a band of reduction loops c, r, s) takes implicit_gemm first, which views it as a "
  "GEMM; tile, register_tile, tensor_core and double_buffer then apply to that view:\n"
  "  k:apply(\"implicit_gemm\", { block = {128, 64}, k = 16, thread = {8, 4} })\n"
  "After a contraction's other schedule passes, persistent keeps its blocks resident, each walking several output "
  "tiles (its setup paid once an SM):\n"
  "  k:apply(\"persistent\")\n"
  "A row reduction (a kernel whose nest below is a \"row nest\": softmax, norms, sums, "
  "matrix-vector products, CSR rows) takes the reduction passes instead: a layout pass, then the "
  "fusions that apply, for example:\n"
  "  k:apply(\"block_reduce\", { threads = 256 })\n"
  "  k:apply(\"online_softmax\")\n"
  "Propose at most 4 ideas, most promising first, none equal to a recipe already tried.\n";

static void model_summary(const KrLlmRoundInput *in, KrBuf *b) {
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSource src;
  size_t before = b->len;
  if (kr_source_from_text(&src, in->source_path, in->source_text, in->source_len, a, d) == KR_OK) {
    kr_source_use(&src, in->build);
    KrTree *t = kr_tree_parse(&src, d);
    if (t) {
      KrModel *m = kr_model_new(t, a);
      if (m) kr_model_text(m, b);
      kr_tree_free(t);
    }
  }
  if (b->len == before) kr_buf_puts(b, "(the kernel model could not be built)\n");
  kr_diags_free(d);
  kr_arena_free(a);
}

/* Each kernel's nest, as `krewrite kernels FILE --nest` prints it: a row reduction's row nest
 * (frontend/rows.h) and the contraction nest where there is one, or why it has neither. */
static void nest_summary(const KrLlmRoundInput *in, KrBuf *b) {
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSource src;
  if (kr_source_from_text(&src, in->source_path, in->source_text, in->source_len, a, d) == KR_OK) {
    kr_source_use(&src, in->build);
    KrTree *t = kr_tree_parse(&src, d);
    KrModel *m = t ? kr_model_new(t, a) : NULL;
    for (size_t i = 0; m && i < m->kernels.len; i++) {
      KrDiags *nd = kr_diags_new(), *rd = kr_diags_new();
      const KrRows *r = kr_rows_lift(t, &m->kernels.data[i], a, rd);
      const KrNest *n = kr_nest_lift(t, &m->kernels.data[i], a, nd);
      if (r) {
        kr_rows_text(r, t, b);
        kr_buf_printf(b, "%s: a row reduction: the reduction passes (block_reduce, warp_reduce, ...) apply\n",
                      m->kernels.data[i].name);
      }
      if (n) kr_nest_text(n, t, b);
      else if (!r) {
        const char *why = kr_diags_first_error(nd), *rwhy = kr_diags_first_error(rd);
        kr_buf_printf(b, "%s: no nest (schedule passes do not apply): %s\n", m->kernels.data[i].name,
                      why ? why : "it cannot be lifted");
        if (rwhy) kr_buf_printf(b, "%s: no row nest (reduction passes do not apply): %s\n", m->kernels.data[i].name, rwhy);
      }
      kr_diags_free(nd);
      kr_diags_free(rd);
    }
    if (t) kr_tree_free(t);
  }
  kr_diags_free(d);
  kr_arena_free(a);
}

/* The reduction passes' section head: when they apply, how they compose, example lines. */
static void reduction_intro(KrBuf *b) {
  bool split = kr_pass_find("split_rows") != NULL;
  kr_buf_puts(b, "\n## Reduction passes (regenerate a row reduction from its row nest)\n");
  kr_buf_printf(b, "\nThey apply to a kernel whose nest above is a row nest (one parallel axis, the row, and per row "
                   "loops of accumulators: sums, max/min, arg-max), not to a contraction. A layout pass sets how a "
                   "row is walked: block_reduce { threads = T, layout = \"auto\"|\"row\"|\"column\" } (a block of T "
                   "threads per row, T a multiple of 32 in 32..1024; \"column\" puts 32 rows a block when the "
                   "reads are contiguous across rows, as in a column sum or A^T x, and needs a thread-per-row "
                   "original; \"auto\" picks it), warp_reduce { threads = T } (a warp per row, T / 32 rows a block; "
                   "for rows of tens to a few thousand elements; needs the row guard row < rows)%s. Fusions follow "
                   "the layout pass and keep it (alone they take block_reduce's defaults): online_softmax (no "
                   "parameters; a max loop followed by a sum of exp(v - max) over the same row becomes one sweep) "
                   "and welford (no parameters; a sum, the mean from it and a sum of squared deviations from that "
                   "mean become one sweep); each reads the row once less. block_reduce and warp_reduce move contiguous "
                   "accesses by 16-byte steps (vector = true, alignment checked per row at run time). After "
                   "block_reduce's row layout, row_cache { steps = S, shared = KIB } keeps a row that a later "
                   "sweep reads again on chip (S 16-byte steps a thread in registers, the rest in KIB of shared "
                   "memory): the row is read once when it fits. The search compiles each such schedule "
                   "and drops it by the same resource limits. For example:\n"
                   "  k:apply(\"warp_reduce\", { threads = 256 })\n"
                   "  k:apply(\"block_reduce\", { threads = 512, layout = \"row\" }); k:apply(\"welford\")\n"
                   "  k:apply(\"block_reduce\", { threads = 1024 }); k:apply(\"online_softmax\"); "
                   "k:apply(\"row_cache\", { steps = 4, shared = 192 })\n%s",
                split ? ", split_rows { parts = P } (a long row over P blocks, P in 2..1024: when the rows are fewer "
                        "than the SMs can hold; with cluster = true and P <= 16 the P blocks are one thread block "
                        "cluster that meets in distributed shared memory, and row_cache after it keeps each block's "
                        "part on chip, so a row too long for one block is read once; with resident = true any P keeps a "
                        "part with one block, the row's P blocks resident on the GPU together and meeting in the "
                        "workspace)" : "",
                split ? "  k:apply(\"split_rows\", { parts = 8 })\n"
                        "  k:apply(\"block_reduce\", { threads = 256 }); k:apply(\"online_softmax\"); "
                        "k:apply(\"split_rows\", { parts = 4, cluster = true }); k:apply(\"row_cache\", { steps = 8, shared = 32 })\n" : "");
  for (size_t i = 0; i < kr_pass_count(); i++)
    if (kr_pass_at(i)->rows) {
      kr_buf_puts(b, "\n");
      kr_pass_describe(kr_pass_at(i), b);
    }
}

/* The catalogue from the registry: the contraction's schedule passes first with the budgets a
 * schedule is held to (passes/schedule.h, then the search's resource pruning, search/prune.h), the
 * reduction passes (passes/reduction.h) with when they apply, then the text passes. */
static void catalogue(KrBuf *b) {
  kr_buf_puts(b, "\n## Schedule passes (regenerate a kernel from its nest)\n");
  kr_buf_printf(b, "\nLimits (sm_90): the schedule checks refuse a block of more than %d threads or fewer "
                   "than 32, more than %d accumulators a thread (TM * TN), staged tiles over %d B of static "
                   "shared memory, and a register tile that does not divide the block tile. Before timing, "
                   "the search compiles each schedule and drops those that spill registers, use more than "
                   "%d registers a thread, or more than %d registers a block (threads x registers); it "
                   "prefers 128 to 256 threads a block and two blocks an SM (%d registers, %d B of shared "
                   "memory an SM).\n",
                KR_SM90_MAX_THREADS, KR_SM90_MAX_ACC_REGS, KR_PRUNE_STATIC_SHARED, KR_PRUNE_MAX_REGISTERS,
                KR_PRUNE_REGISTERS_PER_SM, KR_PRUNE_REGISTERS_PER_SM, KR_PRUNE_SHARED_PER_SM);
  for (size_t i = 0; i < kr_pass_count(); i++)
    if (kr_pass_at(i)->schedule && !kr_pass_at(i)->rows) {
      kr_buf_puts(b, "\n");
      kr_pass_describe(kr_pass_at(i), b);
    }
  reduction_intro(b);
  kr_buf_puts(b, "\n## Text passes (edit the text in place)\n");
  for (size_t i = 0; i < kr_pass_count(); i++)
    if (!kr_pass_at(i)->schedule) {
      kr_buf_puts(b, "\n");
      kr_pass_describe(kr_pass_at(i), b);
    }
}

void kr_llm_prompt(const KrLlmRoundInput *in, KrArena *a, const char **system, const char **user) {
  KrBuf b = {0};
  kr_buf_puts(&b, SYSTEM_PROMPT);
  kr_buf_puts(&b, in->allow_lowering
                      ? "Precision-lowering passes are allowed (call kr.allow_lowering() first).\n"
                      : "Precision-lowering passes are NOT allowed in this run.\n");
  *system = kr_arena_strndup(a, b.data, b.len);
  b.len = 0;
  kr_buf_printf(&b, "## Kernel source (%s)\n```cuda\n", in->source_path);
  kr_buf_append(&b, in->source_text, in->source_len);
  kr_buf_puts(&b, "\n```\n\n## Analyses (the kernel model)\n");
  model_summary(in, &b);
  kr_buf_puts(&b, "\n## The nest (the algorithm the schedule passes read; krewrite kernels --nest)\n");
  nest_summary(in, &b);
  catalogue(&b);
  kr_buf_printf(&b, "\n## Profile\n%s\n", in->profile && *in->profile ? in->profile : "none");
  kr_buf_printf(&b, "\n## History of tried recipes\n%s\n",
                in->history && *in->history ? in->history : "none yet: this is the first round");
  kr_buf_puts(&b, "\nPropose the next ideas in the required JSON format.\n");
  *user = kr_arena_strndup(a, b.data, b.len);
  kr_buf_free(&b);
}

static const char *one_line(KrArena *a, const char *s) {
  char *r = kr_arena_strdup(a, s ? s : "");
  for (char *p = r; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
  return r;
}

static const char *first_error(const KrDiags *d, KrArena *a) {
  const char *m = kr_diags_first_error(d);
  return m ? one_line(a, m) : "unknown error";
}

static void reject(KrLlmRound *out, KrArena *a, const char *why) {
  kr_vec_push(a, &out->rejected, one_line(a, why));
}

/* Why an idea's recipe failed, for the log, run.json and the next prompt. A schedule pass the
 * kernel's nest refuses ("pass 'register_tile' does not apply to kernel 'matmul': mm.cu (after
 * pass 1, tile):7:1: 16 x 16 accumulators per thread would spill registers") is named as such:
 * the pass, its reason, then where. */
static const char *recipe_failure(size_t i, const char *why, KrArena *a) {
  KrPassRefusal r;
  if (kr__pass_refusal(why, a, &r)) {
    const KrPass *p = kr_pass_find(r.pass);
    if (p && p->schedule)
      return kr_arena_printf(a, "idea %zu names a schedule the nest of '%s' refuses: %s: %s (at %s)", i + 1, r.kernel,
                             r.pass, r.reason, r.where);
  }
  return kr_arena_printf(a, "idea %zu: the recipe failed: %s", i + 1, why);
}

/* Checks one idea (a cJSON item) alone: parse, then apply. NULL when usable (pushed). */
static const char *check_idea(const KrLlmRoundInput *in, cJSON *item, size_t i, KrArena *a,
                              KrLlmRound *out) {
  cJSON *wrap = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(wrap, "ideas");
  cJSON_AddItemToArray(arr, cJSON_Duplicate(item, true));
  char *text = cJSON_PrintUnformatted(wrap);
  cJSON_Delete(wrap);
  KrIdeaVec v = {0};
  const char *why = NULL;
  KrStatus st = text ? kr_llm_parse_ideas(text, a, &v, &why) : KR_ERR;
  free(text);
  if (st != KR_OK || v.len != 1)
    return kr_arena_printf(a, "idea %zu: %s", i + 1, why ? why : "not an idea object");
  KrRecipeOptions ro;
  kr_recipe_options_init(&ro, a);
  ro.build = in->build;
  ro.keep_doc = in->keep_runs;
  KrDiags *d = kr_diags_new();
  KrRecipeRun *run = NULL;
  const char *recipe = v.data[0].recipe;
  const char *err = NULL;
  double t = kr_now_s();
  if (kr_recipe_apply("llm-idea.lua", recipe, strlen(recipe), in->source_path, in->source_text,
                      in->source_len, &ro, &run, d) != KR_OK)
    err = recipe_failure(i, first_error(d, a), a);
  double apply_s = kr_now_s() - t;
  if (run && (err || !in->keep_runs)) kr_recipe_run_free(run), run = NULL;
  kr_diags_free(d);
  if (err) return err;
  KrLlmProposal p = {one_line(a, v.data[0].reason), recipe, run, apply_s};
  kr_vec_push(a, &out->ideas, p);
  return NULL;
}

/* Checks a reply; NULL when at least one idea is usable, else why the reply is rejected. */
static const char *check_reply(const KrLlmRoundInput *in, const char *content, KrArena *a,
                               KrLlmRound *out) {
  KrIdeaVec probe = {0};
  const char *why = NULL;
  if (kr_llm_parse_ideas(content, a, &probe, &why) == KR_OK && probe.len == 0)
    return "the reply has no ideas";
  /* Not JSON or no ideas array: the whole reply is unusable. Otherwise look at each idea. */
  const char *text = content ? content : "";
  const char *brace = strchr(text, '{');
  cJSON *root = brace ? cJSON_Parse(brace) : NULL;
  if (!root) {
    /* A fenced reply: let kr_llm_parse_ideas's verdict stand when we cannot read it ourselves. */
    if (why) return why;
    for (size_t i = 0; i < probe.len; i++) {
      cJSON *item = cJSON_CreateObject();
      cJSON_AddStringToObject(item, "reason", probe.data[i].reason);
      cJSON_AddStringToObject(item, "recipe", probe.data[i].recipe);
      const char *e = check_idea(in, item, i, a, out);
      cJSON_Delete(item);
      if (e) reject(out, a, e);
    }
  } else {
    cJSON *ideas = cJSON_GetObjectItemCaseSensitive(root, "ideas"), *item;
    if (!cJSON_IsArray(ideas)) {
      cJSON_Delete(root);
      return why ? why : "the reply has no \"ideas\" array";
    }
    size_t i = 0;
    cJSON_ArrayForEach(item, ideas) {
      const char *e = check_idea(in, item, i++, a, out);
      if (e) reject(out, a, e);
    }
    cJSON_Delete(root);
  }
  return out->ideas.len ? NULL : "no idea was usable (see the errors above)";
}

/* Adds one request's tokens to the round's: the server's count, else the bytes / 4. */
static void count_tokens(const KrLlmMessage *m, size_t n, const KrLlmReply *r, KrLlmRound *out) {
  long sent = 0;
  for (size_t i = 0; i < n; i++) sent += (long)strlen(m[i].content ? m[i].content : "");
  long prompt = r->prompt_tokens, completion = r->completion_tokens;
  if (prompt >= 0) out->prompt_reported = true;
  else prompt = (sent + 3) / 4, out->prompt_estimated = true;
  if (completion >= 0) out->completion_reported = true;
  else if (r->content) completion = ((long)strlen(r->content) + 3) / 4, out->completion_estimated = true;
  out->prompt_tokens = (out->prompt_tokens < 0 ? 0 : out->prompt_tokens) + prompt;
  if (completion >= 0) out->completion_tokens = (out->completion_tokens < 0 ? 0 : out->completion_tokens) + completion;
}

KrStatus kr_llm_propose(const struct KrLlmConfig *cfg, const KrLlmRoundInput *in, KrArena *a,
                        KrLlmRound *out) {
  memset(out, 0, sizeof *out);
  out->prompt_tokens = out->completion_tokens = -1;
  out->cost = -1;
  const char *sys, *user;
  kr_llm_prompt(in, a, &sys, &user);
  KrVec(KrLlmMessage) msgs = {0};
  KrLlmMessage m0 = {"system", sys}, m1 = {"user", user};
  kr_vec_push(a, &msgs, m0);
  kr_vec_push(a, &msgs, m1);
  int repairs = in->max_repairs < 0 ? 2 : in->max_repairs;
  for (int attempt = 0;; attempt++) {
    KrLlmReply r;
    KrDiags *d = kr_diags_new();
    KrStatus st = kr_llm_chat(cfg, msgs.data, msgs.len, kr_llm_ideas_schema(), a, &r, d);
    out->requests++;
    count_tokens(msgs.data, msgs.len, &r, out);
    if (r.cost >= 0) out->cost = (out->cost < 0 ? 0 : out->cost) + r.cost;
    if (st != KR_OK || !r.content) {
      out->error = one_line(a, r.error ? r.error : first_error(d, a));
      kr_diags_free(d);
      return KR_ERR;
    }
    kr_diags_free(d);
    size_t before = out->rejected.len;
    const char *why = check_reply(in, r.content, a, out);
    if (!why) return KR_OK;
    reject(out, a, why);
    if (attempt >= repairs) return KR_OK;
    /* Feed the errors back: the reply, then what was wrong with it. */
    KrBuf b = {0};
    kr_buf_puts(&b, "Your reply was rejected: ");
    for (size_t i = before; i < out->rejected.len; i++)
      kr_buf_printf(&b, "%s%s", i > before ? "; " : "", out->rejected.data[i]);
    kr_buf_puts(&b, ". Reply again in the required format.");
    KrLlmMessage ma = {"assistant", r.content};
    KrLlmMessage mu = {"user", kr_arena_strndup(a, b.data, b.len)};
    kr_buf_free(&b);
    kr_vec_push(a, &msgs, ma);
    kr_vec_push(a, &msgs, mu);
  }
}
