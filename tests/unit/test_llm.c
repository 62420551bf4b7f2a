/* tests/unit/test_llm.c: the LLM client (search/llm.c) against a scripted local server
 * (tests/llm_server.c, path in KR_LLM_SERVER): good replies, bad replies, retries, stalls,
 * quota, the Anthropic protocol, and the API key kept out of everything we print. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recipes/recipe.h"
#include "search/llm.h"

extern char **environ;

/* ---- The scripted server --------------------------------------------------------------------- */
typedef struct Server {
  pid_t pid;
  int port;
  char script[64], log[64];
  char url[128];
} Server;

static void server_start(Server *s, const char *script, const char *path) {
  strcpy(s->script, "/tmp/kr_llm_scriptXXXXXX");
  strcpy(s->log, "/tmp/kr_llm_logXXXXXX");
  int fd = mkstemp(s->script);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, script, strlen(script)), (ssize_t)strlen(script));
  close(fd);
  fd = mkstemp(s->log);
  assert_true(fd >= 0);
  close(fd);
  int out[2];
  assert_int_equal(pipe(out), 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  char *argv[] = {KR_LLM_SERVER, s->script, s->log, "15", NULL};
  assert_int_equal(posix_spawn(&s->pid, KR_LLM_SERVER, &fa, NULL, argv, environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  FILE *f = fdopen(out[0], "r");
  assert_true(fscanf(f, "%d", &s->port) == 1);
  fclose(f);
  snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d%s", s->port, path);
}

/* Stops the server (it may still be waiting for a request the client rightly never sent) and
 * returns what it logged (malloc'd). */
static char *server_stop(Server *s) {
  kill(s->pid, SIGTERM);
  waitpid(s->pid, NULL, 0);
  FILE *f = fopen(s->log, "r");
  assert_non_null(f);
  char *buf = calloc(1, 1 << 20);
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = 0;
  fclose(f);
  unlink(s->log);
  unlink(s->script);
  return buf;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A chat-completions reply carrying `content`, as one script "body" line. */
static char *openai_reply(const char *content, int prompt, int completion) {
  cJSON *root = cJSON_CreateObject();
  cJSON *choices = cJSON_AddArrayToObject(root, "choices");
  cJSON *choice = cJSON_CreateObject();
  cJSON *msg = cJSON_AddObjectToObject(choice, "message");
  cJSON_AddStringToObject(msg, "role", "assistant");
  cJSON_AddStringToObject(msg, "content", content);
  cJSON_AddItemToArray(choices, choice);
  cJSON *usage = cJSON_AddObjectToObject(root, "usage");
  cJSON_AddNumberToObject(usage, "prompt_tokens", prompt);
  cJSON_AddNumberToObject(usage, "completion_tokens", completion);
  char *r = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  return r;
}

/* ---- Fixture --------------------------------------------------------------------------------- */
typedef struct Fix {
  KrArena *arena;
  KrDiags *diags;
  Server server;
  KrLlmConfig cfg;
  KrLlmReply reply;
  char *log;
} Fix;

static const char *const VALID =
  "{\"ideas\": [{\"reason\": \"x, y and out never alias\", "
  "\"recipe\": \"local k = kr.kernel(\\\"vector_add\\\")\\nk:apply(\\\"restrict\\\")\"}]}";

static void fix_start(Fix *f, const char *script) {
  memset(f, 0, sizeof *f);
  f->arena = kr_arena_new();
  f->diags = kr_diags_new();
  server_start(&f->server, script, "/v1/chat/completions");
  f->cfg = (KrLlmConfig){.url = f->server.url, .model = "test-model", .api_key = "test-key",
                         .flavor = KR_LLM_OPENAI, .connect_timeout_s = 2,
                         .request_timeout_s = 5, .low_speed_s = 5, .max_retries = 3,
                         .backoff_s = 0.01, .json_schema = true};
}

static KrStatus fix_chat(Fix *f) {
  KrLlmMessage m[] = {{"system", "You propose krewrite recipes."}, {"user", "kernel: ..."}};
  KrStatus st = kr_llm_chat(&f->cfg, m, 2, kr_llm_ideas_schema(), f->arena, &f->reply, f->diags);
  f->log = server_stop(&f->server);
  return st;
}

static char *fix_diags(Fix *f) {
  KrBuf b = {0};
  kr_diags_format(f->diags, &b);
  char *s = kr_arena_strdup(f->arena, b.data ? b.data : "");
  kr_buf_free(&b);
  return s;
}

static void fix_free(Fix *f) {
  free(f->log);
  kr_diags_free(f->diags);
  kr_arena_free(f->arena);
}

static char *script_ok(const char *content) {
  char *body = openai_reply(content, 120, 30);
  size_t n = strlen(body) + 64;
  char *s = malloc(n);
  snprintf(s, n, "respond 200\nbody %s\n", body);
  free(body);
  return s;
}

/* ---- Tests ----------------------------------------------------------------------------------- */
static void scripted_local_server_valid_ideas_are_parsed(void **state) {
  Fix f;
  char *script = script_ok(VALID);
  fix_start(&f, script);
  assert_int_equal(fix_chat(&f), KR_OK);
  assert_int_equal(f.reply.http_status, 200);
  assert_int_equal(f.reply.attempts, 1);
  assert_int_equal(f.reply.prompt_tokens, 120);
  assert_int_equal(f.reply.completion_tokens, 30);
  assert_true(f.reply.cost < 0);
  assert_null(f.reply.error);
  KrIdeaVec ideas = {0};
  const char *why;
  assert_int_equal(kr_llm_parse_ideas(f.reply.content, f.arena, &ideas, &why), KR_OK);
  assert_int_equal(ideas.len, 1);
  assert_string_equal(ideas.data[0].reason, "x, y and out never alias");
  assert_non_null(strstr(ideas.data[0].recipe, "k:apply(\"restrict\")"));
  /* What went over the wire: the key in its header, the model, structured output asked for. */
  assert_non_null(strstr(f.log, "Authorization: Bearer test-key"));
  assert_non_null(strstr(f.log, "\"model\":\"test-model\""));
  assert_non_null(strstr(f.log, "\"type\":\"json_schema\""));
  assert_non_null(strstr(f.log, "\"strict\":true"));
  assert_non_null(strstr(f.log, "\"role\":\"system\""));
  free(script);
  fix_free(&f);
}

static void scripted_local_server_429_retry_after_is_honoured(void **state) {
  Fix f;
  char *ok = script_ok(VALID);
  char script[8192];
  snprintf(script, sizeof script,
           "respond 429\nheader Retry-After: 1\n"
           "body {\"error\": {\"message\": \"Rate limit reached\", \"type\": \"requests\", "
           "\"code\": \"rate_limit_exceeded\"}}\n%s", ok);
  fix_start(&f, script);
  double t0 = now();
  assert_int_equal(fix_chat(&f), KR_OK);
  double waited = now() - t0;
  assert_true(waited >= 1.0);  /* the backoff alone would be 0.01 s */
  assert_int_equal(f.reply.attempts, 2);
  assert_int_equal(f.reply.http_status, 200);
  assert_int_equal(count(f.log, "=== request"), 2);
  assert_non_null(strstr(fix_diags(&f), "HTTP 429: Rate limit reached"));
  free(ok);
  fix_free(&f);
}

static void scripted_local_server_500_then_success_retries(void **state) {
  Fix f;
  char *ok = script_ok(VALID);
  char script[8192];
  snprintf(script, sizeof script,
           "respond 500\nbody {\"error\": {\"message\": \"internal\"}}\n"
           "respond 502\nbody <html>bad gateway</html>\n%s", ok);
  fix_start(&f, script);
  assert_int_equal(fix_chat(&f), KR_OK);
  assert_int_equal(f.reply.attempts, 3);
  assert_int_equal(f.reply.prompt_tokens, 120);
  assert_int_equal(count(f.log, "=== request"), 3);
  free(ok);
  fix_free(&f);
}

static void scripted_local_server_closed_connection_is_retried(void **state) {
  Fix f;
  char *ok = script_ok(VALID);
  char script[8192];
  snprintf(script, sizeof script, "close\n%s", ok);
  fix_start(&f, script);
  assert_int_equal(fix_chat(&f), KR_OK);
  assert_int_equal(f.reply.attempts, 2);
  free(ok);
  fix_free(&f);
}

static void scripted_local_server_stalled_connection_times_out(void **state) {
  Fix f;
  fix_start(&f, "stall\nstall\n");
  f.cfg.request_timeout_s = 1;
  f.cfg.low_speed_s = 1;
  f.cfg.max_retries = 1;
  double t0 = now();
  assert_int_equal(fix_chat(&f), KR_ERR);
  assert_true(now() - t0 < 6);
  assert_int_equal(f.reply.attempts, 2);
  assert_int_equal(f.reply.http_status, 0);
  assert_null(f.reply.content);
  assert_non_null(strstr(f.reply.error, "timed out"));
  assert_int_equal(f.diags->nerrors, 1);
  assert_non_null(strstr(fix_diags(&f), "failed after 2 attempts"));
  fix_free(&f);
}

static void scripted_local_server_malformed_json_is_reported(void **state) {
  Fix f;
  char *script = script_ok("{\"ideas\": [{\"reason\": \"unroll\", \"recipe\": ");
  fix_start(&f, script);
  assert_int_equal(fix_chat(&f), KR_OK);  /* the transport worked; the content is bad */
  KrIdeaVec ideas = {0};
  const char *why;
  assert_int_equal(kr_llm_parse_ideas(f.reply.content, f.arena, &ideas, &why), KR_ERR);
  assert_non_null(strstr(why, "not valid JSON"));
  assert_null(strchr(why, '\n'));
  assert_int_equal(ideas.len, 0);
  /* Valid JSON without the fields is reported by name. */
  assert_int_equal(kr_llm_parse_ideas("{\"ideas\": [{\"reason\": \"r\"}]}", f.arena, &ideas, &why),
                   KR_ERR);
  assert_string_equal(why, "ideas[0] has no \"recipe\" string");
  assert_int_equal(kr_llm_parse_ideas("[1, 2]", f.arena, &ideas, &why), KR_ERR);
  assert_non_null(strstr(why, "no \"ideas\" array"));
  /* A fenced reply is fine. */
  assert_int_equal(kr_llm_parse_ideas("```json\n{\"ideas\": []}\n```", f.arena, &ideas, &why),
                   KR_OK);
  free(script);
  fix_free(&f);
}

static void scripted_local_server_unknown_pass_is_reported(void **state) {
  Fix f;
  char *script = script_ok(
    "{\"ideas\": [{\"reason\": \"fine\", \"recipe\": \"k:apply('restrict')\"}, "
    "{\"reason\": \"magic\", \"recipe\": \"k:try( \\\"warp_magic\\\", {x = 1})\"}]}");
  fix_start(&f, script);
  assert_int_equal(fix_chat(&f), KR_OK);
  KrIdeaVec ideas = {0};
  const char *why;
  assert_int_equal(kr_llm_parse_ideas(f.reply.content, f.arena, &ideas, &why), KR_ERR);
  assert_non_null(strstr(why, "ideas[1]: unknown pass 'warp_magic' in k:try"));
  assert_non_null(strstr(why, "restrict"));  /* the known passes are listed */
  assert_int_equal(ideas.len, 0);           /* all or nothing */
  free(script);
  fix_free(&f);
}

/* A recipe that names only known passes but calls os.execute gets through the parser; the
 * sandbox then refuses it with a clear error, which is what the proposer feeds back. */
static void scripted_local_server_hostile_recipe_fails_in_the_sandbox(void **state) {
  Fix f;
  char *script = script_ok(
    "{\"ideas\": [{\"reason\": \"speed\", \"recipe\": \"os.execute('touch /tmp/kr_pwned')\\n"
    "local k = kr.kernel(\\\"vector_add\\\")\\nk:apply(\\\"restrict\\\")\"}]}");
  fix_start(&f, script);
  unlink("/tmp/kr_pwned");
  assert_int_equal(fix_chat(&f), KR_OK);
  KrIdeaVec ideas = {0};
  const char *why;
  assert_int_equal(kr_llm_parse_ideas(f.reply.content, f.arena, &ideas, &why), KR_OK);
  assert_int_equal(ideas.len, 1);
  char *kernel;
  size_t klen;
  const char *kpath = KR_SOURCE_DIR "/examples/vector_add/kernel.cu";
  assert_int_equal(kr_file_read(kpath, f.arena, &kernel, &klen, f.diags), KR_OK);
  KrRecipeOptions opt;
  kr_recipe_options_init(&opt, f.arena);
  KrRecipeRun *run = NULL;
  KrDiags *rd = kr_diags_new();
  assert_int_equal(kr_recipe_apply("idea.lua", ideas.data[0].recipe, strlen(ideas.data[0].recipe),
                                   kpath, kernel, klen, &opt, &run, rd),
                   KR_ERR);
  assert_null(run);
  assert_true(rd->nerrors >= 1);
  assert_non_null(
    strstr(rd->items.data[0].message, "attempt to index a nil value (global 'os')"));
  assert_int_equal(rd->items.data[0].line, 1);
  assert_int_equal(access("/tmp/kr_pwned", F_OK), -1);
  kr_diags_free(rd);
  free(script);
  fix_free(&f);
}

static void scripted_local_server_quota_exhausted_is_not_retried(void **state) {
  Fix f;
  char *ok = script_ok(VALID);
  char script[8192];
  snprintf(script, sizeof script,
           "respond 429\nheader Retry-After: 1\n"
           "body {\"error\": {\"message\": \"You exceeded your current quota\", "
           "\"type\": \"insufficient_quota\", \"code\": \"insufficient_quota\"}}\n%s", ok);
  fix_start(&f, script);
  assert_int_equal(fix_chat(&f), KR_ERR);
  assert_int_equal(f.reply.attempts, 1);
  assert_int_equal(f.reply.http_status, 429);
  assert_non_null(strstr(f.reply.error, "You exceeded your current quota"));
  assert_non_null(strstr(f.reply.error, "not retried"));
  assert_int_equal(count(f.log, "=== request"), 1);
  free(ok);
  fix_free(&f);
}

static void scripted_local_server_anthropic_messages_protocol(void **state) {
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  Server s;
  server_start(&s,
               "respond 200\nbody {\"content\": [{\"type\": \"text\", \"text\": \"{\\\"ideas\\\": "
               "[]}\"}], \"usage\": {\"input_tokens\": 11, \"output_tokens\": 7}}\n",
               "/v1/messages");
  setenv("KREWRITE_LLM_URL", s.url, 1);
  setenv("KREWRITE_LLM_MODEL", "claude-test", 1);
  unsetenv("KREWRITE_LLM_API_KEY");
  setenv("OPENAI_API_KEY", "wrong-key", 1);
  setenv("ANTHROPIC_API_KEY", "ant-key", 1);
  KrLlmConfig c;
  assert_int_equal(kr_llm_config_from_env(&c, a, d), KR_OK);
  assert_int_equal(c.flavor, KR_LLM_ANTHROPIC);
  assert_string_equal(c.api_key, "ant-key");
  KrLlmMessage m[] = {{"system", "be brief"}, {"user", "ideas?"}};
  KrLlmReply r;
  assert_int_equal(kr_llm_chat(&c, m, 2, kr_llm_ideas_schema(), a, &r, d), KR_OK);
  char *log = server_stop(&s);
  assert_string_equal(r.content, "{\"ideas\": []}");
  assert_int_equal(r.prompt_tokens, 11);
  assert_int_equal(r.completion_tokens, 7);
  assert_non_null(strstr(log, "x-api-key: ant-key"));
  assert_non_null(strstr(log, "anthropic-version: 2023-06-01"));
  assert_null(strstr(log, "Authorization"));
  assert_non_null(strstr(log, "\"system\":\"be brief\""));
  assert_null(strstr(log, "\"role\":\"system\""));
  assert_non_null(strstr(log, "\"max_tokens\":"));
  unsetenv("KREWRITE_LLM_URL");
  unsetenv("KREWRITE_LLM_MODEL");
  unsetenv("OPENAI_API_KEY");
  unsetenv("ANTHROPIC_API_KEY");
  free(log);
  kr_diags_free(d);
  kr_arena_free(a);
}

static void api_key_never_appears_in_diagnostics(void **state) {
  Fix f;
  fix_start(&f,
            "respond 401\nbody {\"error\": {\"message\": \"Incorrect API key provided: "
            "sk-SECRET-4321. Find your key at the dashboard.\", \"type\": "
            "\"invalid_request_error\", \"code\": \"invalid_api_key\"}}\n"
            "respond 200\nbody {}\n");
  f.cfg.api_key = "sk-SECRET-4321";
  assert_int_equal(fix_chat(&f), KR_ERR);
  assert_int_equal(f.reply.attempts, 1);  /* 401 is not retried */
  assert_int_equal(f.reply.http_status, 401);
  assert_non_null(strstr(f.log, "Authorization: Bearer sk-SECRET-4321"));  /* it was sent */
  char *text = fix_diags(&f);
  assert_non_null(strstr(text, "Incorrect API key provided: [redacted]"));
  assert_null(strstr(text, "sk-SECRET-4321"));
  assert_null(strstr(f.reply.error, "sk-SECRET-4321"));
  assert_null(strstr(f.cfg.url, "sk-SECRET-4321"));
  fix_free(&f);
}

static void missing_url_is_a_clear_error(void **state) {
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrLlmConfig c;
  unsetenv("KREWRITE_LLM_URL");
  assert_int_equal(kr_llm_config_from_env(&c, a, d), KR_ERR);
  assert_non_null(strstr(d->items.data[0].message, "KREWRITE_LLM_URL is not set"));
  setenv("KREWRITE_LLM_URL", "http://127.0.0.1:1/v1/chat/completions", 1);
  unsetenv("KREWRITE_LLM_MODEL");
  assert_int_equal(kr_llm_config_from_env(&c, a, d), KR_ERR);
  assert_non_null(strstr(d->items.data[1].message, "KREWRITE_LLM_MODEL is not set"));
  setenv("KREWRITE_LLM_MODEL", "m", 1);
  unsetenv("KREWRITE_LLM_API_KEY");
  unsetenv("OPENAI_API_KEY");
  setenv("ANTHROPIC_API_KEY", "not-for-openai", 1);
  assert_int_equal(kr_llm_config_from_env(&c, a, d), KR_ERR);
  assert_non_null(strstr(d->items.data[2].message, "OPENAI_API_KEY"));
  assert_null(strstr(d->items.data[2].message, "not-for-openai"));
  unsetenv("KREWRITE_LLM_URL");
  unsetenv("KREWRITE_LLM_MODEL");
  unsetenv("ANTHROPIC_API_KEY");
  kr_diags_free(d);
  kr_arena_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(scripted_local_server_valid_ideas_are_parsed),
    cmocka_unit_test(scripted_local_server_429_retry_after_is_honoured),
    cmocka_unit_test(scripted_local_server_500_then_success_retries),
    cmocka_unit_test(scripted_local_server_closed_connection_is_retried),
    cmocka_unit_test(scripted_local_server_stalled_connection_times_out),
    cmocka_unit_test(scripted_local_server_malformed_json_is_reported),
    cmocka_unit_test(scripted_local_server_unknown_pass_is_reported),
    cmocka_unit_test(scripted_local_server_hostile_recipe_fails_in_the_sandbox),
    cmocka_unit_test(scripted_local_server_quota_exhausted_is_not_retried),
    cmocka_unit_test(scripted_local_server_anthropic_messages_protocol),
    cmocka_unit_test(api_key_never_appears_in_diagnostics),
    cmocka_unit_test(missing_url_is_a_clear_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
