/* recipes/recipe.c: running a recipe over a file (kr_recipe_apply), the audit log it leaves,
 * and replay from that log. */
#include "recipes/recipe.h"

#include <cjson/cJSON.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "base/diff.h"
#include "recipes/recipe_state.h"

void kr_recipe_options_init(KrRecipeOptions *o, KrArena *arena) {
  (void)arena;
  memset(o, 0, sizeof *o);
  kr_lua_limits_default(&o->limits);
}

static bool is_number(const char *s, bool *integer) {
  char *end;
  strtoll(s, &end, 10);
  if (*s && !*end) return *integer = true;
  strtod(s, &end);
  *integer = false;
  return *s && !*end;
}

static bool is_identifier(const char *s, size_t n) {
  if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
    return false;
  for (size_t i = 1; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
          (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return false;
  return true;
}

KrStatus kr_recipe_define(KrRecipeOptions *o, KrArena *arena, const char *arg, KrDiags *diags) {
  const char *eq = strchr(arg, '=');
  if (!eq || !is_identifier(arg, (size_t)(eq - arg))) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0,
                "-D expects name=value with an identifier for the name, got '%s'", arg);
    return KR_ERR;
  }
  KrDefine d = {.name = kr_arena_strndup(arena, arg, (size_t)(eq - arg))};
  const char *v = eq + 1;
  bool integer;
  d.value.text = kr_arena_strdup(arena, v);
  if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) d.value.kind = KR_RAW_BOOL;
  else if (is_number(v, &integer)) d.value.kind = integer ? KR_RAW_INT : KR_RAW_NUMBER;
  else d.value.kind = KR_RAW_STRING;
  for (size_t i = 0; i < o->defines.len; i++)
    if (strcmp(o->defines.data[i].name, d.name) == 0) {
      o->defines.data[i] = d; /* the last -D of a name wins, as with compilers */
      return KR_OK;
    }
  kr_vec_push(arena, &o->defines, d);
  return KR_OK;
}

/* ---- Running ---------------------------------------------------------------------------------- */

/* print() for recipes, handing each line to the caller's KrRecipePrint (upvalue 1 holds the
 * options). The line is built in a Lua buffer, so it counts against the memory limit. */
static int l_print(lua_State *L) {
  const KrRecipeOptions *o = lua_touserdata(L, lua_upvalueindex(1));
  int n = lua_gettop(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 1; i <= n; i++) {
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&b);
  }
  luaL_addchar(&b, '\n');
  luaL_pushresult(&b);
  size_t len;
  const char *line = lua_tolstring(L, -1, &len);
  o->print(o->print_ctx, line, len);
  return 0;
}

static KrRecipeRun *run_new(const char *recipe_path, const char *recipe_text, size_t recipe_len,
                            const char *input_path, const char *input_text, size_t input_len,
                            const KrRecipeOptions *opt) {
  KrArena *a = kr_arena_new();
  KrRecipeRun *r = kr_arena_alloc(a, sizeof *r);
  r->arena = a;
  r->recipe_path = kr_arena_strdup(a, recipe_path);
  r->recipe_text = kr_arena_strndup(a, recipe_text, recipe_len);
  r->input_path = kr_arena_strdup(a, input_path);
  r->input_text = kr_arena_strndup(a, input_text, input_len);
  r->input_len = (uint32_t)input_len;
  for (size_t i = 0; i < opt->defines.len; i++) kr_vec_push(a, &r->defines, opt->defines.data[i]);
  if (opt->build)
    for (size_t i = 0; i < opt->build->defines.len; i++)
      kr_vec_push(a, &r->build.defines, kr_arena_strdup(a, opt->build->defines.data[i]));
  return r;
}

static unsigned long applies;   /* kr_recipe_apply's calls in this process */

unsigned long kr_recipe_applies(void) {
  return applies;
}

KrStatus kr_recipe_apply(const char *recipe_path, const char *recipe_text, size_t recipe_len,
                         const char *input_path, const char *input_text, size_t input_len,
                         const KrRecipeOptions *opt, KrRecipeRun **out, KrDiags *diags) {
  *out = NULL;
  applies++;
  KrRecipeRun *run = run_new(recipe_path, recipe_text, recipe_len, input_path, input_text,
                             input_len, opt);
  KrRecipeState st = {.run = run};
  KrLua *lua = NULL;
  KrStatus s = KR_ERR;
  st.doc = kr_doc_new_built(input_path, input_text, input_len, &run->build, diags);
  if (!st.doc) goto done;
  lua = kr_lua_new(&opt->limits);
  if (!lua) {
    kr_diag_pos(diags, KR_DIAG_ERROR, recipe_path, 0, 0, "cannot create the Lua state");
    goto done;
  }
  kr__module_open(kr_lua_state(lua), &st);
  if (opt->print) {
    lua_pushlightuserdata(kr_lua_state(lua), (void *)opt);
    lua_pushcclosure(kr_lua_state(lua), l_print, 1);
    lua_setglobal(kr_lua_state(lua), "print");
  }
  s = kr_lua_run(lua, recipe_path, recipe_text, recipe_len, 0, diags);
  if (s != KR_OK) goto done;
  for (size_t i = 0; i < run->defines.len; i++)
    if (!run->defines.data[i].used)
      kr_diag_pos(diags, KR_DIAG_WARNING, recipe_path, 0, 0,
                  "-D %s was given but the recipe never read it (kr.param(\"%s\", default))",
                  run->defines.data[i].name, run->defines.data[i].name);
  const KrSource *src = kr_doc_source(st.doc);
  run->output_text = kr_arena_strndup(run->arena, src->text, src->len);
  run->output_len = src->len;
  if (opt->keep_doc) run->doc = st.doc, st.doc = NULL;
  *out = run;
  run = NULL;
done:
  kr_lua_free(lua);
  kr_doc_free(st.doc);
  if (run) kr_recipe_run_free(run);
  return s;
}

void kr_recipe_run_free(KrRecipeRun *self) {
  if (!self) return;
  kr_doc_free(self->doc);   /* before the arena: the document reads the run's build */
  kr_arena_free(self->arena);
}

/* ---- Parameters from text ----------------------------------------------------------------------- */

/* (arena, pass, table, out): the table's raw arguments into *out, raising as k:apply would. */
static int l_raw_args(lua_State *L) {
  kr__lua_raw_args(L, 3, lua_tostring(L, 2), lua_touserdata(L, 1), lua_touserdata(L, 4));
  return 0;
}

KrStatus kr_recipe_args(const char *pass, const char *params, KrArena *arena, KrRawArgs *out,
                        KrDiags *diags) {
  memset(out, 0, sizeof *out);
  KrLua *lua = kr_lua_new(NULL);
  if (!lua) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "cannot create the Lua state");
    return KR_ERR;
  }
  lua_State *L = kr_lua_state(lua);
  const char *chunk = kr_arena_printf(arena, "return %s", params);
  KrStatus s = kr_lua_run(lua, "parameters", chunk, strlen(chunk), 1, diags);
  if (s == KR_OK) {
    lua_pushcfunction(L, l_raw_args);
    lua_pushlightuserdata(L, arena);
    lua_pushstring(L, pass);
    lua_pushvalue(L, -4);   /* the table */
    lua_pushlightuserdata(L, out);
    s = kr_lua_pcall(lua, 4, 0, diags);
  }
  kr_lua_free(lua);
  return s;
}

/* ---- The audit log ------------------------------------------------------------------------------- */

static void jkey(KrBuf *o, const char *indent, const char *key) {
  kr_buf_printf(o, ",\n%s\"%s\": ", indent, key);
}

static void log_scalar(KrBuf *o, const KrRawScalar *s) {
  if (s->kind == KR_RAW_STRING) kr_buf_json_str(o, s->text);
  else kr_buf_puts(o, s->text);
}

void kr_recipe_text_name(const char *input_path, size_t step, const char *pass, KrBuf *out) {
  const char *slash = input_path ? strrchr(input_path, '/') : NULL;
  kr_buf_puts(out, slash ? slash + 1 : input_path ? input_path : "input");
  if (step == 0) kr_buf_puts(out, ", original");
  else kr_buf_printf(out, ", after pass %zu (%s)", step, pass ? pass : "?");
}

/* Record `index` of the run's records, with its diff from the text before it to the text after. */
static void log_record(KrBuf *o, const KrRecipeRun *run, size_t index) {
  const KrPassRecord *r = &run->records.data[index];
  kr_buf_puts(o, "\n    {\"pass\": ");
  kr_buf_json_str(o, r->pass);
  jkey(o, "     ", "kernel"), kr_buf_json_str(o, r->kernel);
  jkey(o, "     ", "params"), kr_buf_puts(o, r->params_json);
  jkey(o, "     ", "given"), kr_buf_puts(o, r->given_json);
  jkey(o, "     ", "precision"), kr_buf_json_str(o, kr_precision_name(r->precision));
  jkey(o, "     ", "tolerance"), kr_buf_json_str(o, r->tolerance);
  jkey(o, "     ", "assumptions"), kr_buf_putc(o, '[');
  for (size_t i = 0; i < r->assumptions.len; i++) {
    if (i) kr_buf_puts(o, ", ");
    kr_buf_json_str(o, r->assumptions.data[i]);
  }
  kr_buf_putc(o, ']');
  jkey(o, "     ", "launch"), kr_buf_puts(o, "{\"grid\": "), kr_buf_json_str(o, r->launch.grid);
  kr_buf_puts(o, ", \"block\": "), kr_buf_json_str(o, r->launch.block);
  kr_buf_puts(o, ", \"shmem\": "), kr_buf_json_str(o, r->launch.shmem);
  if (r->launch.workspace) kr_buf_puts(o, ", \"workspace\": "), kr_buf_json_str(o, r->launch.workspace);
  if (r->launch.args) kr_buf_puts(o, ", \"args\": "), kr_buf_json_str(o, r->launch.args);
  if (r->launch.drops) kr_buf_puts(o, ", \"drops\": "), kr_buf_json_str(o, r->launch.drops);
  if (r->launch.borrows) kr_buf_puts(o, ", \"borrows\": "), kr_buf_json_str(o, r->launch.borrows);
  if (r->launch.fills) kr_buf_puts(o, ", \"fills\": "), kr_buf_json_str(o, r->launch.fills);
  kr_buf_putc(o, '}');
  if (r->schedule_json) jkey(o, "     ", "schedule"), kr_buf_puts(o, r->schedule_json);
  jkey(o, "     ", "edits"), kr_buf_putc(o, '[');
  for (size_t i = 0; i < r->edits.len; i++) {
    const KrEdit *e = &r->edits.data[i];
    kr_buf_printf(o, "%s{\"start\": %u, \"end\": %u, \"text\": ", i ? ", " : "", e->start, e->end);
    kr_buf_json_str(o, e->text);
    kr_buf_putc(o, '}');
  }
  kr_buf_putc(o, ']');
  KrBuf d = {0}, before = {0}, after = {0};
  kr_recipe_text_name(run->input_path, index, index ? run->records.data[index - 1].pass : NULL, &before);
  kr_recipe_text_name(run->input_path, index + 1, r->pass, &after);
  kr_diff_unified(r->before, r->before_len, r->after, r->after_len, before.data, after.data, 3, &d);
  jkey(o, "     ", "diff"), kr_buf_json_string(o, d.data ? d.data : "", d.len);
  kr_buf_free(&d);
  kr_buf_free(&before);
  kr_buf_free(&after);
  kr_buf_putc(o, '}');
}

void kr_recipe_log_json(const KrRecipeRun *self, KrBuf *o) {
  char in_sha[65], out_sha[65];
  kr_sha256_hex(self->input_text, self->input_len, in_sha);
  kr_sha256_hex(self->output_text, self->output_len, out_sha);
  kr_buf_puts(o, "{\"tool\": \"krewrite\"");
  jkey(o, " ", "version"), kr_buf_json_str(o, KR_VERSION);
  jkey(o, " ", "input"), kr_buf_puts(o, "{\"path\": "), kr_buf_json_str(o, self->input_path);
  if (self->build.defines.len) {   /* the source's macros its conditionals were decided with */
    kr_buf_puts(o, ", \"defines\": [");
    for (size_t i = 0; i < self->build.defines.len; i++) {
      if (i) kr_buf_puts(o, ", ");
      kr_buf_json_str(o, self->build.defines.data[i]);
    }
    kr_buf_putc(o, ']');
  }
  kr_buf_printf(o, ", \"sha256\": \"%s\", \"bytes\": %u, \"text\": ", in_sha, self->input_len);
  kr_buf_json_string(o, self->input_text, self->input_len);
  kr_buf_putc(o, '}');
  jkey(o, " ", "recipe"), kr_buf_puts(o, "{\"path\": "), kr_buf_json_str(o, self->recipe_path);
  kr_buf_puts(o, ", \"text\": "), kr_buf_json_str(o, self->recipe_text);
  kr_buf_puts(o, ", \"defines\": {");
  for (size_t i = 0; i < self->defines.len; i++) {
    kr_buf_printf(o, "%s\"%s\": ", i ? ", " : "", self->defines.data[i].name);
    log_scalar(o, &self->defines.data[i].value);
  }
  kr_buf_puts(o, "}}");
  jkey(o, " ", "allow_lowering"), kr_buf_puts(o, self->allow_lowering ? "true" : "false");
  jkey(o, " ", "passes"), kr_buf_putc(o, '[');
  for (size_t i = 0; i < self->records.len; i++) {
    if (i) kr_buf_putc(o, ',');
    log_record(o, self, i);
  }
  kr_buf_puts(o, "]");
  jkey(o, " ", "skipped"), kr_buf_putc(o, '[');
  for (size_t i = 0; i < self->skipped.len; i++) {
    if (i) kr_buf_puts(o, ", ");
    kr_buf_json_str(o, self->skipped.data[i]);
  }
  kr_buf_putc(o, ']');
  jkey(o, " ", "output"), kr_buf_printf(o, "{\"sha256\": \"%s\", \"bytes\": %u}", out_sha,
                                        self->output_len);
  kr_buf_puts(o, "\n}\n");
}

/* ---- JSON documents ----------------------------------------------------------------------------- */

struct cJSON *kr_recipe_json_parse(const char *path, const char *text, size_t len,
                                   const char *what, KrDiags *diags) {
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
  /* Only white space may follow the value (cJSON's own check wants a NUL within len). */
  while (root && end < text + len && *end && strchr(" \t\r\n", *end)) end++;
  if (root && end != text + len) cJSON_Delete(root), root = NULL;
  if (root) return root;
  /* cJSON points at where it gave up; on a failure that is the first byte it could not take. */
  size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < at; i++) line += text[i] == '\n', col = text[i] == '\n' ? 1 : col + 1;
  if (len == 0) kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "empty file, not JSON: expected %s", what);
  else kr_diag_pos(diags, KR_DIAG_ERROR, path, line, col,
                   "not JSON: syntax error at byte %zu; expected %s", at, what);
  return NULL;
}

/* ---- Replay -------------------------------------------------------------------------------------- */

static bool json_scalar(const cJSON *j, KrRawScalar *s, KrArena *a) {
  if (cJSON_IsBool(j)) *s = (KrRawScalar){KR_RAW_BOOL, cJSON_IsTrue(j) ? "true" : "false"};
  else if (cJSON_IsString(j)) *s = (KrRawScalar){KR_RAW_STRING, kr_arena_strdup(a, j->valuestring)};
  else if (cJSON_IsNumber(j) && j->valuedouble == (double)(long long)j->valuedouble)
    *s = (KrRawScalar){KR_RAW_INT, kr_arena_printf(a, "%lld", (long long)j->valuedouble)};
  else if (cJSON_IsNumber(j)) *s = (KrRawScalar){KR_RAW_NUMBER, kr_arena_printf(a, "%.17g", j->valuedouble)};
  else return false;
  return true;
}

static bool json_args(const cJSON *params, KrRawArgs *out, KrArena *a) {
  memset(out, 0, sizeof *out);
  const cJSON *p;
  cJSON_ArrayForEach(p, params) {
    KrRawArg r = {.key = kr_arena_strdup(a, p->string), .is_list = cJSON_IsArray(p)};
    KrRawScalar s;
    if (r.is_list) {
      const cJSON *item;
      cJSON_ArrayForEach(item, p) {
        if (!json_scalar(item, &s, a)) return false;
        kr_vec_push(a, &r.items, s);
      }
    } else {
      if (!json_scalar(p, &s, a)) return false;
      kr_vec_push(a, &r.items, s);
    }
    kr_vec_push(a, out, r);
  }
  return true;
}

static const char *jget_str(const cJSON *o, const char *key) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* Which member of a rebuilt launch change differs from the logged one ("workspace"), or NULL.
 * A member the log leaves out is unchanged. The runtime launches the replayed kernel with what
 * the log says, so a replay that changes a launch (a workspace's size) is refused. */
static const char *launch_differs(const cJSON *logged, const KrLaunchChange *c) {
  static const char *const keys[] = {"grid", "block", "shmem", "workspace", "args", "drops", "borrows", "fills"};
  const char *vals[] = {c->grid, c->block, c->shmem, c->workspace, c->args, c->drops, c->borrows, c->fills};
  if (!logged) return NULL;   /* logs from before launch changes were recorded */
  for (int i = 0; i < 8; i++) {
    const char *l = jget_str(logged, keys[i]);
    if ((l == NULL) != (vals[i] == NULL) || (l && strcmp(l, vals[i]) != 0)) return keys[i];
  }
  return NULL;
}

/* Re-applies each recorded pass; returns KR_ERR naming the pass that failed. */
static KrStatus replay_passes(KrDoc *doc, const cJSON *passes, const char *log_path, KrArena *a,
                              KrDiags *diags) {
  const cJSON *p;
  size_t i = 0;
  cJSON_ArrayForEach(p, passes) {
    const char *name = jget_str(p, "pass"), *kernel = jget_str(p, "kernel");
    const char *prec = jget_str(p, "precision");
    const KrPass *pass = name ? kr_pass_find(name) : NULL;
    KrRawArgs raw;
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(p, "given");
    if (!pass || !kernel || !cJSON_IsObject(given) || !json_args(given, &raw, a)) {
      kr_diag_pos(diags, KR_DIAG_ERROR, log_path, 0, 0,
                  "passes[%zu]: %s", i, pass ? "malformed record" : "unknown or missing pass");
      return KR_ERR;
    }
    KrPassRecord rec;
    bool lowers = prec && strcmp(prec, "lowers") == 0;
    if (kr_doc_run_pass(doc, pass, kernel, &raw, lowers, a, &rec, diags) != KR_OK) {
      kr_diag_pos(diags, KR_DIAG_ERROR, log_path, 0, 0, "passes[%zu] (%s on %s) did not re-apply",
                  i, name, kernel);
      return KR_ERR;
    }
    const char *changed = launch_differs(cJSON_GetObjectItemCaseSensitive(p, "launch"), &rec.launch);
    if (changed) {
      kr_diag_pos(diags, KR_DIAG_ERROR, log_path, 0, 0, "passes[%zu] (%s on %s) rebuilt a different "
                  "launch change than the log records (%s)", i, name, kernel, changed);
      return KR_ERR;
    }
    /* A schedule pass must rebuild the same schedule as the one logged. */
    const cJSON *logged = cJSON_GetObjectItemCaseSensitive(p, "schedule");
    cJSON *rebuilt = rec.schedule_json ? cJSON_Parse(rec.schedule_json) : NULL;
    bool same = (!logged && !rebuilt) || (logged && rebuilt && cJSON_Compare(logged, rebuilt, true));
    cJSON_Delete(rebuilt);
    if (!same) {
      kr_diag_pos(diags, KR_DIAG_ERROR, log_path, 0, 0, "passes[%zu] (%s on %s) rebuilt a different "
                  "schedule than the log records (%s)", i, name, kernel, rec.schedule_json ? rec.schedule_json : "none");
      return KR_ERR;
    }
    i++;
  }
  return KR_OK;
}

KrStatus kr_recipe_replay(const char *log_path, const char *log_text, size_t len, KrBuf *out,
                          KrDiags *diags) {
  cJSON *root = kr_recipe_json_parse(log_path, log_text, len,
                                     "the --log of krewrite apply (or a search's best.json)", diags);
  if (!root) return KR_ERR;
  KrArena *a = kr_arena_new();
  KrDoc *doc = NULL;
  KrStatus s = KR_ERR;
  const cJSON *input = cJSON_GetObjectItemCaseSensitive(root, "input");
  const cJSON *output = cJSON_GetObjectItemCaseSensitive(root, "output");
  const cJSON *passes = cJSON_GetObjectItemCaseSensitive(root, "passes");
  const char *text = jget_str(input, "text"), *path = jget_str(input, "path");
  const char *in_sha = jget_str(input, "sha256"), *out_sha = jget_str(output, "sha256");
  if (!root || !text || !path || !in_sha || !out_sha || !cJSON_IsArray(passes)) {
    kr_diag_pos(diags, KR_DIAG_ERROR, log_path, 0, 0,
                "not a krewrite run log (needs input.text, input.sha256, passes, output.sha256)");
    goto done;
  }
  char sha[65];
  kr_sha256_hex(text, strlen(text), sha);
  if (strcmp(sha, in_sha) != 0) {
    kr_diag_pos(diags, KR_DIAG_ERROR, log_path, 0, 0, "the embedded input does not match its sha256");
    goto done;
  }
  KrBuildFlags build = {0};
  const cJSON *defs = cJSON_GetObjectItemCaseSensitive(input, "defines"), *def;
  cJSON_ArrayForEach(def, defs) {
    if (!cJSON_IsString(def) || kr_build_define(&build, def->valuestring, "input.defines", a, diags) != KR_OK) {
      kr_diag_pos(diags, KR_DIAG_ERROR, log_path, 0, 0, "input.defines must hold \"NAME[=VALUE]\" strings");
      goto done;
    }
  }
  doc = kr_doc_new_built(path, text, strlen(text), &build, diags);
  if (!doc || replay_passes(doc, passes, log_path, a, diags) != KR_OK) goto done;
  const KrSource *src = kr_doc_source(doc);
  kr_sha256_hex(src->text, src->len, sha);
  if (strcmp(sha, out_sha) != 0) {
    kr_diag_pos(diags, KR_DIAG_ERROR, log_path, 0, 0,
                "replayed output differs from the logged one (sha256 %s, log says %s)", sha, out_sha);
    goto done;
  }
  kr_buf_append(out, src->text, src->len);
  s = KR_OK;
done:
  kr_doc_free(doc);
  kr_arena_free(a);
  cJSON_Delete(root);
  return s;
}
