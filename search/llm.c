/* search/llm.c: the LLM proposer's HTTP client (OpenAI chat completions and Anthropic messages
 * over libcurl) and the checker for the ideas a model proposes. See search/llm.h for the
 * contract: retries, secrets, threads. */
#include "search/llm.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "passes/pass.h"

#define RETRY_AFTER_CAP_S 60.0
#define ANTHROPIC_MAX_TOKENS 8192
#define MAX_REPLY_BYTES (16u << 20)

/* ==== Helpers ================================================================================= */

/* Replaces every occurrence of the key by "[redacted]": servers echo keys in their error
 * messages ("Incorrect API key provided: sk-..."), and those messages end up in diagnostics. */
static const char *redact(KrArena *a, const char *s, const char *key) {
  if (!s) return NULL;
  if (!key || !*key) return kr_arena_strdup(a, s);
  KrBuf b = {0};
  size_t kl = strlen(key);
  const char *p = s, *q;
  while ((q = strstr(p, key))) {
    kr_buf_append(&b, p, (size_t)(q - p));
    kr_buf_puts(&b, "[redacted]");
    p = q + kl;
  }
  kr_buf_puts(&b, p);
  char *r = kr_arena_strdup(a, b.data);
  kr_buf_free(&b);
  return r;
}

/* One line, at most 300 bytes: server bodies can be whole HTML pages. */
static const char *one_line(KrArena *a, const char *s) {
  char *r = kr_arena_strndup(a, s, strlen(s) > 300 ? 300 : strlen(s));
  for (char *p = r; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
  return r;
}

static void sleep_s(double s) {
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {}
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ==== Configuration =========================================================================== */

static bool url_is_anthropic(const char *url) {
  const char *q = strchr(url, '?');
  char path[1024];
  size_t n = q ? (size_t)(q - url) : strlen(url);
  if (n >= sizeof path) return false;
  memcpy(path, url, n);
  path[n] = 0;
  while (n > 0 && path[n - 1] == '/') path[--n] = 0;
  return ends_with(path, "/v1/messages");
}

KrStatus kr_llm_config_from_env(KrLlmConfig *c, KrArena *a, KrDiags *d) {
  memset(c, 0, sizeof *c);
  c->connect_timeout_s = 10;
  c->request_timeout_s = 300;
  c->low_speed_s = 60;
  c->max_retries = 4;
  c->backoff_s = 1;
  c->json_schema = true;
  const char *url = env("KREWRITE_LLM_URL"), *model = env("KREWRITE_LLM_MODEL");
  if (!url) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "KREWRITE_LLM_URL is not set: give the full endpoint, e.g. "
                "https://api.openai.com/v1/chat/completions, http://127.0.0.1:8080/v1/chat/"
                "completions (llama.cpp, vLLM, Ollama) or https://api.anthropic.com/v1/messages");
    return KR_ERR;
  }
  if (!model) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "KREWRITE_LLM_MODEL is not set: name the model the endpoint serves");
    return KR_ERR;
  }
  const char *flavor = env("KREWRITE_LLM_FLAVOR");
  c->flavor = (flavor && strcmp(flavor, "anthropic") == 0) || url_is_anthropic(url)
                ? KR_LLM_ANTHROPIC : KR_LLM_OPENAI;
  const char *fallback = c->flavor == KR_LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  const char *key = env("KREWRITE_LLM_API_KEY");
  if (!key) key = env(fallback);
  if (!key) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "no API key: set KREWRITE_LLM_API_KEY or %s (any value for a local server "
                "that needs none)", fallback);
    return KR_ERR;
  }
  const char *schema = env("KREWRITE_LLM_JSON_SCHEMA");
  if (schema && strcmp(schema, "0") == 0) c->json_schema = false;
  c->url = kr_arena_strdup(a, url);
  c->model = kr_arena_strdup(a, model);
  c->api_key = kr_arena_strdup(a, key);
  return KR_OK;
}

/* ==== Requests ================================================================================ */

static cJSON *message_json(const KrLlmMessage *m) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "role", m->role);
  cJSON_AddStringToObject(o, "content", m->content ? m->content : "");
  return o;
}

/* Anthropic takes the system prompt as a top-level field, not as a message. */
static void anthropic_body(cJSON *root, const KrLlmMessage *m, size_t n) {
  KrBuf sys = {0};
  cJSON *msgs = cJSON_AddArrayToObject(root, "messages");
  for (size_t i = 0; i < n; i++) {
    if (strcmp(m[i].role, "system") == 0) {
      if (sys.len) kr_buf_puts(&sys, "\n\n");
      kr_buf_puts(&sys, m[i].content ? m[i].content : "");
    } else {
      cJSON_AddItemToArray(msgs, message_json(&m[i]));
    }
  }
  if (sys.len) cJSON_AddStringToObject(root, "system", sys.data);
  cJSON_AddNumberToObject(root, "max_tokens", ANTHROPIC_MAX_TOKENS);
  kr_buf_free(&sys);
}

/* The request body as JSON text (heap; the caller frees it), or NULL with *why set. */
static char *request_body(const KrLlmConfig *c, const KrLlmMessage *m, size_t n,
                          const char *schema, const char **why) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "model", c->model);
  if (c->flavor == KR_LLM_ANTHROPIC) {
    anthropic_body(root, m, n);
  } else {
    cJSON *msgs = cJSON_AddArrayToObject(root, "messages");
    for (size_t i = 0; i < n; i++) cJSON_AddItemToArray(msgs, message_json(&m[i]));
    if (schema && c->json_schema) {
      cJSON *s = cJSON_Parse(schema);
      if (!s) {
        *why = "the JSON schema given to kr_llm_chat is not valid JSON";
        cJSON_Delete(root);
        return NULL;
      }
      cJSON *rf = cJSON_AddObjectToObject(root, "response_format");
      cJSON_AddStringToObject(rf, "type", "json_schema");
      cJSON *js = cJSON_AddObjectToObject(rf, "json_schema");
      cJSON_AddStringToObject(js, "name", "krewrite_ideas");
      cJSON_AddItemToObject(js, "schema", s);
      cJSON_AddBoolToObject(js, "strict", true);
    }
  }
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  return text;
}

/* ==== One attempt ============================================================================= */

typedef struct Attempt {
  KrBuf body;
  double retry_after;       /* seconds from a Retry-After header; <0 none */
  bool too_big;
  CURLcode rc;
  long status;
  char curl_err[CURL_ERROR_SIZE];
} Attempt;

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
  Attempt *at = ud;
  if (at->body.len + size * n > MAX_REPLY_BYTES) {
    at->too_big = true;
    return 0;
  }
  kr_buf_append(&at->body, p, size * n);
  return size * n;
}

/* Retry-After in seconds ("1", "2.5"); the HTTP-date form falls back to our own backoff. */
static size_t on_header(char *p, size_t size, size_t n, void *ud) {
  Attempt *at = ud;
  size_t len = size * n;
  static const char name[] = "retry-after:";
  if (len > sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0) {
    char tmp[64];
    size_t m = len - (sizeof name - 1) < sizeof tmp - 1 ? len - (sizeof name - 1) : sizeof tmp - 1;
    memcpy(tmp, p + sizeof name - 1, m);
    tmp[m] = 0;
    char *end;
    double v = strtod(tmp, &end);
    while (*end == ' ' || *end == '\r' || *end == '\n') end++;
    if (end != tmp && *end == 0 && v >= 0) at->retry_after = v;
  }
  return len;
}

static void attempt_run(CURL *h, Attempt *at) {
  at->retry_after = -1;
  at->curl_err[0] = 0;
  curl_easy_setopt(h, CURLOPT_WRITEDATA, at);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, at);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, at->curl_err);
  at->rc = curl_easy_perform(h);
  at->status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &at->status);
}

static bool curl_retryable(CURLcode rc) {
  switch (rc) {
  case CURLE_OPERATION_TIMEDOUT: case CURLE_COULDNT_CONNECT: case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_RECV_ERROR: case CURLE_SEND_ERROR: case CURLE_GOT_NOTHING: case CURLE_PARTIAL_FILE:
  case CURLE_SSL_CONNECT_ERROR:
    return true;
  default:
    return false;
  }
}

static bool http_retryable(long s) {
  return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

/* The server's error message from an OpenAI- or Anthropic-style error body, or the body's
 * first line; *quota is set when the code or type says the quota is exhausted. */
static const char *server_message(KrArena *a, const char *body, bool *quota) {
  *quota = false;
  cJSON *root = cJSON_Parse(body);
  const char *msg = NULL;
  cJSON *e = root ? cJSON_GetObjectItemCaseSensitive(root, "error") : NULL;
  if (cJSON_IsString(e)) msg = e->valuestring;
  if (cJSON_IsObject(e)) {
    cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
    cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
    cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
    if (cJSON_IsString(m)) msg = m->valuestring;
    *quota = (cJSON_IsString(code) && strcmp(code->valuestring, "insufficient_quota") == 0) ||
             (cJSON_IsString(type) && strcmp(type->valuestring, "insufficient_quota") == 0);
  }
  const char *r = one_line(a, msg ? msg : *body ? body : "(empty body)");
  cJSON_Delete(root);
  return r;
}

/* ==== Replies ================================================================================= */

static long num_or(cJSON *o, const char *name, long def) {
  cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsNumber(v) ? (long)v->valuedouble : def;
}

static const char *openai_content(cJSON *root, KrArena *a, const char **why) {
  cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
  cJSON *msg = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(choices, 0), "message");
  cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
  cJSON *refusal = cJSON_GetObjectItemCaseSensitive(msg, "refusal");
  if (cJSON_IsString(content)) return kr_arena_strdup(a, content->valuestring);
  if (cJSON_IsString(refusal))
    *why = kr_arena_printf(a, "the model refused: %s", one_line(a, refusal->valuestring));
  else
    *why = "the reply has no choices[0].message.content";
  return NULL;
}

static const char *anthropic_content(cJSON *root, KrArena *a, const char **why) {
  cJSON *blocks = cJSON_GetObjectItemCaseSensitive(root, "content"), *b;
  KrBuf text = {0};
  bool any = false;
  cJSON_ArrayForEach(b, blocks) {
    cJSON *type = cJSON_GetObjectItemCaseSensitive(b, "type");
    cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "text");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "text") == 0 && cJSON_IsString(t)) {
      kr_buf_puts(&text, t->valuestring);
      any = true;
    }
  }
  const char *r = any ? kr_arena_strdup(a, text.data) : NULL;
  kr_buf_free(&text);
  if (!any) *why = "the reply has no text block in content[]";
  return r;
}

/* Fills content, tokens and cost from a 2xx body; NULL error on success. */
static const char *parse_reply(const KrLlmConfig *c, const char *body, KrArena *a,
                               KrLlmReply *out) {
  cJSON *root = cJSON_Parse(body);
  if (!root) return kr_arena_printf(a, "the server's reply is not JSON: %s", one_line(a, body));
  const char *why = NULL;
  cJSON *usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
  if (c->flavor == KR_LLM_ANTHROPIC) {
    out->content = anthropic_content(root, a, &why);
    out->prompt_tokens = num_or(usage, "input_tokens", -1);
    out->completion_tokens = num_or(usage, "output_tokens", -1);
  } else {
    out->content = openai_content(root, a, &why);
    out->prompt_tokens = num_or(usage, "prompt_tokens", -1);
    out->completion_tokens = num_or(usage, "completion_tokens", -1);
  }
  cJSON *cost = cJSON_GetObjectItemCaseSensitive(usage, "cost");
  if (cJSON_IsNumber(cost)) out->cost = cost->valuedouble;
  cJSON_Delete(root);
  return why;
}

/* ==== The call ================================================================================ */

static struct curl_slist *headers(const KrLlmConfig *c) {
  char line[4096];
  struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
  h = curl_slist_append(h, "Expect:");  /* no 100-continue round trip */
  if (c->flavor == KR_LLM_ANTHROPIC) {
    snprintf(line, sizeof line, "x-api-key: %s", c->api_key);
    h = curl_slist_append(h, line);
    h = curl_slist_append(h, "anthropic-version: 2023-06-01");
  } else {
    snprintf(line, sizeof line, "Authorization: Bearer %s", c->api_key);
    h = curl_slist_append(h, line);
  }
  explicit_bzero(line, sizeof line);
  return h;
}

static void setup(CURL *h, const KrLlmConfig *c, struct curl_slist *hdr, const char *body) {
  curl_easy_setopt(h, CURLOPT_URL, c->url);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(c->connect_timeout_s * 1000));
  if (c->request_timeout_s > 0)
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(c->request_timeout_s * 1000));
  if (c->low_speed_s > 0) {
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, (long)ceil(c->low_speed_s));
  }
  curl_easy_setopt(h, CURLOPT_USERAGENT, "krewrite/" KR_VERSION);
}

/* What to do after an attempt: done (*err NULL: success), or retry, or give up with *err. */
static bool judge(const KrLlmConfig *c, Attempt *at, KrArena *a, KrLlmReply *out,
                  const char **err) {
  out->http_status = at->status;
  if (at->rc != CURLE_OK) {
    if (at->too_big)
      *err = "the reply is over 16 MiB";
    else if (at->curl_err[0])
      *err = kr_arena_printf(a, "%s (%s)", curl_easy_strerror(at->rc), at->curl_err);
    else
      *err = curl_easy_strerror(at->rc);
    return !at->too_big && curl_retryable(at->rc);
  }
  kr_buf_putc(&at->body, 0);
  at->body.len--;
  if (at->status >= 200 && at->status < 300) {
    *err = parse_reply(c, at->body.data, a, out);
    return false;
  }
  bool quota;
  const char *msg = server_message(a, at->body.data, &quota);
  *err = kr_arena_printf(a, "HTTP %ld: %s%s", at->status, msg,
                         quota ? " (quota exhausted: not retried)" : "");
  return http_retryable(at->status) && !quota;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;  /* the one process-wide curl setup */
static CURLcode curl_init_rc;
static void init_curl(void) { curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT); }

static double retry_wait(const KrLlmConfig *c, const Attempt *at, int k) {
  if (at->retry_after >= 0) return fmin(at->retry_after, RETRY_AFTER_CAP_S);
  return fmin(c->backoff_s * ldexp(1.0, k), RETRY_AFTER_CAP_S);
}

/* The attempt loop; returns the last error, or NULL on success. */
static const char *attempts(const KrLlmConfig *c, CURL *h, KrArena *a, KrLlmReply *out,
                            KrDiags *d) {
  const char *err = NULL;
  for (int k = 0;; k++) {
    Attempt at = {0};
    out->attempts = k + 1;
    attempt_run(h, &at);
    bool retry = judge(c, &at, a, out, &err);
    double wait = retry_wait(c, &at, k);
    kr_buf_free(&at.body);
    if (!retry || k >= c->max_retries) return err;
    kr_diag_pos(d, KR_DIAG_NOTE, NULL, 0, 0, "LLM attempt %d failed (%s); retrying in %.3g s",
                k + 1, redact(a, err, c->api_key), wait);
    sleep_s(wait);
  }
}

KrStatus kr_llm_chat(const KrLlmConfig *c, const KrLlmMessage *m, size_t n,
                     const char *json_schema, KrArena *a, KrLlmReply *out, KrDiags *d) {
  memset(out, 0, sizeof *out);
  out->prompt_tokens = out->completion_tokens = -1;
  out->cost = -1;
  const char *err = NULL;
  char *body = NULL;
  CURL *h = NULL;
  struct curl_slist *hdr = NULL;
  pthread_once(&curl_once, init_curl);
  if (curl_init_rc != CURLE_OK) {
    err = "libcurl could not be initialised";
    goto done;
  }
  if (!(body = request_body(c, m, n, json_schema, &err))) goto done;
  if (!(h = curl_easy_init())) {
    err = "libcurl could not create a handle";
    goto done;
  }
  hdr = headers(c);
  setup(h, c, hdr, body);
  err = attempts(c, h, a, out, d);
done:
  curl_slist_free_all(hdr);  /* holds the key: freed, never printed */
  if (h) curl_easy_cleanup(h);
  free(body);
  out->content = redact(a, out->content, c->api_key);
  if (!err) return KR_OK;
  out->content = NULL;
  out->error = redact(a, err, c->api_key);
  kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "LLM request to %s failed after %d attempt%s: %s",
              redact(a, c->url, c->api_key), out->attempts, out->attempts == 1 ? "" : "s",
              out->error);
  return KR_ERR;
}

/* ==== Ideas =================================================================================== */

const char *kr_llm_ideas_schema(void) {
  return "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"ideas\"],"
         "\"properties\":{\"ideas\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
         "\"additionalProperties\":false,\"required\":[\"reason\",\"recipe\"],"
         "\"properties\":{\"reason\":{\"type\":\"string\",\"description\":\"one line: why this "
         "should be faster\"},\"recipe\":{\"type\":\"string\",\"description\":\"a krewrite Lua "
         "recipe\"}}}}}}";
}

/* Strips a Markdown code fence (```json ... ```) that models like to add. */
static const char *unfence(KrArena *a, const char *s) {
  while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++;
  if (strncmp(s, "```", 3) != 0) return s;
  const char *nl = strchr(s, '\n');
  if (!nl) return s;
  const char *end = strstr(nl + 1, "```");
  return kr_arena_strndup(a, nl + 1, end ? (size_t)(end - nl - 1) : strlen(nl + 1));
}

/* The first pass named by k:apply("NAME"...) / k:try('NAME'...) that the registry does not
 * know, with the method it was called through; NULL when all are known. A name held in a
 * variable cannot be checked here; the recipe run reports it. */
static const char *unknown_pass(KrArena *a, const char *recipe, const char **method) {
  static const char *const methods[] = {":apply", ":try"};
  for (size_t i = 0; i < 2; i++) {
    size_t ml = strlen(methods[i]);
    for (const char *p = strstr(recipe, methods[i]); p; p = strstr(p + 1, methods[i])) {
      const char *q = p + ml;
      while (*q == ' ' || *q == '\t') q++;
      if (*q == '(') q++;
      while (*q == ' ' || *q == '\t' || *q == '\n') q++;
      if (*q != '"' && *q != '\'') continue;
      const char *end = strchr(q + 1, *q);
      if (!end) continue;
      char *name = kr_arena_strndup(a, q + 1, (size_t)(end - q - 1));
      if (!kr_pass_find(name)) {
        *method = methods[i] + 1;
        return name;
      }
    }
  }
  return NULL;
}

static const char *check_idea(KrArena *a, cJSON *item, size_t i, KrIdea *idea) {
  if (!cJSON_IsObject(item)) return kr_arena_printf(a, "ideas[%zu] is not an object", i);
  cJSON *reason = cJSON_GetObjectItemCaseSensitive(item, "reason");
  cJSON *recipe = cJSON_GetObjectItemCaseSensitive(item, "recipe");
  if (!cJSON_IsString(reason) || !*reason->valuestring)
    return kr_arena_printf(a, "ideas[%zu] has no \"reason\" string", i);
  if (!cJSON_IsString(recipe) || !*recipe->valuestring)
    return kr_arena_printf(a, "ideas[%zu] has no \"recipe\" string", i);
  const char *method, *name = unknown_pass(a, recipe->valuestring, &method);
  if (name)
    return kr_arena_printf(a, "ideas[%zu]: unknown pass '%s' in k:%s (known passes: %s)", i,
                           name, method, kr_pass_names(a));
  idea->reason = kr_arena_strdup(a, reason->valuestring);
  idea->recipe = kr_arena_strdup(a, recipe->valuestring);
  return NULL;
}

KrStatus kr_llm_parse_ideas(const char *content, KrArena *a, KrIdeaVec *out, const char **why) {
  *why = NULL;
  const char *text = unfence(a, content ? content : "");
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, false);
  if (!root) {
    size_t at = end && end >= text ? (size_t)(end - text) : 0;
    *why = kr_arena_printf(a, "the reply is not valid JSON (at byte %zu): expected "
                           "{\"ideas\": [{\"reason\": \"...\", \"recipe\": \"...\"}]}", at);
    return KR_ERR;
  }
  cJSON *ideas = cJSON_GetObjectItemCaseSensitive(root, "ideas"), *item;
  if (!cJSON_IsArray(ideas))
    *why = "the reply has no \"ideas\" array: expected {\"ideas\": [{\"reason\": \"...\", "
           "\"recipe\": \"...\"}]}";
  KrIdeaVec got = {0};
  size_t i = 0;
  cJSON_ArrayForEach(item, ideas) {
    KrIdea idea;
    if (!*why && (*why = check_idea(a, item, i++, &idea)) == NULL) kr_vec_push(a, &got, idea);
  }
  cJSON_Delete(root);
  if (*why) return KR_ERR;
  for (size_t k = 0; k < got.len; k++) kr_vec_push(a, out, got.data[k]);
  return KR_OK;
}
