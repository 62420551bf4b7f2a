/* search/llm_proposer.h: the LLM proposer of `krewrite optimize --proposer llm` (DESIGN.md,
 * Search). One round: build the prompt (system: what krewrite is, the reply format, the kr API
 * and how schedule passes compose; user: the kernel source, the kernel model, each kernel's nest
 * as `krewrite kernels --nest` prints it, the pass catalogue from the registry (schedule passes
 * first, with sm_90's limits from passes/schedule.h and search/prune.h, then text passes), the
 * profile and the history of tried recipes), ask the model (search/llm.h), check every idea (parse, then the recipe is
 * applied to the source through kr_recipe_apply) and keep those that apply. A reply that is not
 * JSON, or whose ideas are all unusable, is fed back to the model as an error, up to max_repairs
 * times; a round with no usable idea is recorded as such, never an error of the run.
 *
 * This header deliberately does not include search/llm.h (whose KrIdea is not heuristic.h's):
 * the configuration is passed as an opaque `struct KrLlmConfig`. The API key is never written
 * anywhere by this module. */
#ifndef KR_LLM_PROPOSER_H
#define KR_LLM_PROPOSER_H

#include "base/kr.h"
#include "recipes/recipe.h"

struct KrLlmConfig;

typedef struct KrLlmRoundInput {
  const char *source_path;
  const char *source_text;
  size_t source_len;
  const KrBuildFlags *build;   /* the source's defines (its #if groups); NULL: none */
  const char *profile;     /* NULL: none */
  const char *history;     /* text of the tried recipes and their results (times, resources,
                            * schedules where known); NULL or "": none */
  bool allow_lowering;
  int max_repairs;         /* follow-ups after an unusable reply; < 0: the default, 2 */
  bool keep_runs;          /* hand each usable idea's run back (KrLlmProposal.run) */
} KrLlmRoundInput;

typedef struct KrLlmProposal {
  const char *reason;      /* one line */
  const char *recipe;
  /* With KrLlmRoundInput.keep_runs: the check's run of the recipe (its document kept), which the
   * caller frees with kr_recipe_run_free, and the seconds the apply took; else NULL. */
  KrRecipeRun *run;
  double apply_s;
} KrLlmProposal;

typedef struct KrLlmRound {
  KrVec(KrLlmProposal) ideas;    /* ideas whose recipe applies, in the model's order */
  KrVec(const char *) rejected;  /* one line per rejected reply or idea */
  /* Sums over the round's requests: the server's usage where it reports one, else an estimate of
   * the bytes sent (or received) / 4, flagged below; -1: nothing to count. */
  long prompt_tokens, completion_tokens;
  bool prompt_estimated, completion_estimated;  /* some request's count is an estimate */
  bool prompt_reported, completion_reported;    /* some request's count is the server's */
  double cost;             /* sum as reported; < 0: unknown */
  int requests;
  const char *error;       /* the request itself failed (unreachable, HTTP error): one line */
} KrLlmRound;

/* The two messages of the round's first request, in the arena. */
void kr_llm_prompt(const KrLlmRoundInput *in, KrArena *a, const char **system, const char **user);

/* Runs one round against the endpoint. Always fills *out; KR_ERR only when a request failed
 * (out->error says why), in which case the ideas gathered so far are still in *out. */
KrStatus kr_llm_propose(const struct KrLlmConfig *cfg, const KrLlmRoundInput *in, KrArena *a,
                        KrLlmRound *out);

#endif
