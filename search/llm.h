/* search/llm.h: the LLM proposer's client. It speaks OpenAI's chat-completions protocol (OpenAI,
 * vLLM, llama.cpp server, Ollama, OpenRouter) and Anthropic's messages API over libcurl, retries
 * what is worth retrying, and checks the model's reply ourselves: a bad reply is an error string
 * for the caller to feed back to the model, never a reason to stop the run (DESIGN.md, Search).
 *
 * Secrets: the API key goes into one request header and nowhere else. It is never logged, never
 * put into a diagnostic or a returned string; server text that echoes it is redacted.
 *
 * Threads: kr_llm_chat may be called from several threads at once. libcurl's global setup runs
 * exactly once (pthread_once) on the first call; each call owns its own CURL handle. Nothing
 * else is shared. Programs that also use libcurl elsewhere should call curl_global_init
 * themselves before starting threads, as libcurl asks. */
#ifndef KR_LLM_H
#define KR_LLM_H

#include "base/kr.h"

typedef enum { KR_LLM_OPENAI, KR_LLM_ANTHROPIC } KrLlmFlavor;

/* Strings are borrowed (kr_llm_config_from_env puts them in the arena it is given). */
typedef struct KrLlmConfig {
  const char *url;          /* the full endpoint: .../v1/chat/completions or .../v1/messages */
  const char *model;
  const char *api_key;
  KrLlmFlavor flavor;
  double connect_timeout_s; /* TCP/TLS connect; default 10 */
  double request_timeout_s; /* one whole attempt; default 300 */
  double low_speed_s;       /* give up on an attempt that receives nothing for this long; 60 */
  int max_retries;          /* attempts after the first; default 4 */
  double backoff_s;         /* the k-th retry waits backoff_s * 2^k unless Retry-After says; 1 */
  bool json_schema;         /* send response_format json_schema (OpenAI flavor only); true */
} KrLlmConfig;

/* Fills *c from KREWRITE_LLM_URL, KREWRITE_LLM_MODEL and KREWRITE_LLM_API_KEY (else
 * OPENAI_API_KEY or ANTHROPIC_API_KEY, by flavor). The flavor is anthropic when the URL path
 * ends in /v1/messages or KREWRITE_LLM_FLAVOR=anthropic. KREWRITE_LLM_JSON_SCHEMA=0 turns
 * structured output off for servers that reject it. A missing URL, model or key is a clear error
 * naming the variable to set. */
KrStatus kr_llm_config_from_env(KrLlmConfig *c, KrArena *a, KrDiags *d);

typedef struct KrLlmMessage {
  const char *role;         /* "system", "user" or "assistant" */
  const char *content;
} KrLlmMessage;

/* What one call did, for the round's record. Strings are in the arena given to kr_llm_chat. */
typedef struct KrLlmReply {
  const char *content;      /* the model's text; NULL on failure */
  long http_status;         /* of the last attempt; 0 when no HTTP answer came */
  int attempts;
  long prompt_tokens, completion_tokens;  /* -1 when the server did not say */
  double cost;              /* as the server reports it (OpenRouter's usage.cost); <0 unknown */
  const char *error;        /* one line, NULL on success */
} KrLlmReply;

/* Sends the conversation and waits for the reply, retrying on timeouts, connection errors and
 * HTTP 408/429/500/502/503/504 (honouring Retry-After, capped at 60 s), but not on an exhausted
 * quota or on other 4xx. json_schema (a JSON Schema as text, or NULL) asks OpenAI-style servers
 * for structured output; the Anthropic flavor ignores it (the caller validates either way).
 * KR_OK with out->content, or KR_ERR with out->error and one error in d (retries add notes). */
KrStatus kr_llm_chat(const KrLlmConfig *c, const KrLlmMessage *m, size_t n,
                     const char *json_schema, KrArena *a, KrLlmReply *out, KrDiags *d);

/* ---- Ideas ----------------------------------------------------------------------------------- */
typedef struct KrIdea {
  const char *reason;       /* one line of natural language */
  const char *recipe;       /* Lua recipe text */
} KrIdea;
/* A named vector type: two KrVec(KrIdea) spellings are distinct anonymous structs in C. */
typedef KrVec(KrIdea) KrIdeaVec;

/* The JSON Schema of a reply ({"ideas": [{"reason", "recipe"}]}), strict-mode compatible. */
const char *kr_llm_ideas_schema(void);

/* Parses a reply's content as {"ideas": [{"reason": "...", "recipe": "lua text"}, ...]}
 * (a Markdown code fence around it is tolerated) and appends to *out. KR_ERR with a one-line
 * *why (in the arena) when it is not JSON, lacks a field, or a recipe names an unknown pass in
 * k:apply("NAME" ...) / k:try("NAME" ...); *why is meant to be sent back to the model. Whether
 * the recipe runs (the sandbox refuses os.execute and the like) is checked by kr_recipe_apply. */
KrStatus kr_llm_parse_ideas(const char *content, KrArena *a, KrIdeaVec *out, const char **why);

#endif
