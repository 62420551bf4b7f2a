/* recipes/kr_module.c: the `kr` module that recipes see.
 *
 *   local k = kr.kernel("conv2d")            -- a handle; unknown names list the kernels there are
 *   k:apply("ldg", { params = {"x", "w"} })  -- raises with the pass's reason when not applicable
 *   local ok, why = k:try("vectorize", { width = 4 })
 *   kr.allow_lowering()                      -- opt in to passes that lower precision
 *   local w = kr.param("width", 4)           -- -D width=8 on the command line overrides
 *   kr.kernels(), kr.passes(), kr.pass("ldg")
 *
 * Handles are plain tables whose apply/try are closures over the kernel name and the handle
 * itself, so no metatables (which the sandbox withholds from scripts) are needed. The identity is
 * kept in those upvalues, where a script cannot reach it: the table's `name` field is only for
 * reading, and a handle whose `name` was changed, or an apply called with another table as self,
 * is refused rather than quietly run on whichever kernel one of them names. */
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#include "recipes/recipe_state.h"

static KrRecipeState *state(lua_State *L) {
  return lua_touserdata(L, lua_upvalueindex(1));
}

/* A string argument without embedded NUL bytes: C sees a string only up to its first NUL, so
 * "ldg\0x" would otherwise run as "ldg" and "a\0b" name kernel "a". */
static const char *check_name(lua_State *L, int idx, const char *what) {
  size_t len;
  const char *s = luaL_checklstring(L, idx, &len);
  if (strlen(s) != len)
    luaL_error(L, "%s \"%s\\0...\" contains a NUL byte at position %d", what, s, (int)strlen(s) + 1);
  return s;
}

/* ---- Arguments from Lua ------------------------------------------------------------------------- */

static KrRawScalar scalar(lua_State *L, int idx, const char *pass, const char *key, KrArena *a) {
  KrRawScalar s = {0};
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      s.kind = KR_RAW_INT;
      s.text = kr_arena_printf(a, "%lld", (long long)lua_tointeger(L, idx));
    } else {
      s.kind = KR_RAW_NUMBER;
      s.text = kr_arena_printf(a, "%.17g", (double)lua_tonumber(L, idx));
    }
    break;
  case LUA_TBOOLEAN:
    s.kind = KR_RAW_BOOL;
    s.text = lua_toboolean(L, idx) ? "true" : "false";
    break;
  case LUA_TSTRING:
    s.kind = KR_RAW_STRING;
    s.text = kr_arena_strdup(a, check_name(L, idx, kr_arena_printf(a, "parameter '%s' of %s: the string", key, pass)));
    break;
  default:
    luaL_error(L, "parameter '%s' of %s has a %s value; use numbers, booleans, strings or "
                  "lists of them", key, pass, luaL_typename(L, idx));
  }
  return s;
}

/* A list parameter (the table on top) must be a sequence: the keys 1..n and nothing else. Reading
 * only 1..#t would drop { x = 1 } or { [3] = "a" } without a word, and run the pass with the
 * default list, which for names means "every pointer". */
static void check_sequence(lua_State *L, lua_Integer n, const char *pass, const char *key) {
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= n) continue;
    if (lua_type(L, -1) == LUA_TSTRING)
      luaL_error(L, "parameter '%s' of %s must be a list ({\"a\", \"b\"}), got a table with the "
                    "key '%s'", key, pass, lua_tostring(L, -1));
    else if (lua_isinteger(L, -1))
      luaL_error(L, "parameter '%s' of %s must be a list ({\"a\", \"b\"}), got a table with the "
                    "key [%I] after %I entries", key, pass, lua_tointeger(L, -1), n);
    else
      luaL_error(L, "parameter '%s' of %s must be a list ({\"a\", \"b\"}), got a table with a "
                    "%s key", key, pass, luaL_typename(L, -1));
  }
}

static int raw_cmp(const void *x, const void *y) {
  return strcmp(((const KrRawArg *)x)->key, ((const KrRawArg *)y)->key);
}

void kr__lua_raw_args(lua_State *L, int idx, const char *pass, KrArena *arena, KrRawArgs *out) {
  memset(out, 0, sizeof *out);
  if (lua_isnoneornil(L, idx)) return;
  if (!lua_istable(L, idx))
    luaL_error(L, "pass '%s': parameters must be a table like { width = 4 }, got a %s", pass,
               luaL_typename(L, idx));
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING)
      luaL_error(L, "pass '%s': parameters are given by name ({ width = 4 }), got a %s key",
                 pass, luaL_typename(L, -2));
    KrRawArg r = {.key = kr_arena_strdup(arena, check_name(L, -2, "a parameter name"))};
    if (lua_istable(L, -1)) {
      r.is_list = true;
      lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
      check_sequence(L, n, pass, r.key);
      for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        KrRawScalar s = scalar(L, -1, pass, r.key, arena);
        kr_vec_push(arena, &r.items, s);
        lua_pop(L, 1);
      }
    } else {
      KrRawScalar s = scalar(L, -1, pass, r.key, arena);
      kr_vec_push(arena, &r.items, s);
    }
    kr_vec_push(arena, out, r);
    lua_pop(L, 1);
  }
  if (out->len > 1) qsort(out->data, out->len, sizeof *out->data, raw_cmp);
}

const char *kr__diags_join(const KrDiags *d, KrArena *arena) {
  KrBuf b = {0};
  for (size_t i = 0; i < d->items.len; i++) {
    const KrDiag *x = &d->items.data[i];
    if (i) kr_buf_puts(&b, "; ");
    if (x->path && x->line) kr_buf_printf(&b, "%s:%u:%u: ", x->path, x->line, x->col);
    kr_buf_puts(&b, x->message);
  }
  const char *s = kr_arena_strndup(arena, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return s;
}

const char *kr_recipe_pass_failure(const char *pass, const char *kernel, KrStatus st, const KrDiags *d,
                                   KrArena *arena) {
  const char *why = kr__diags_join(d, arena);
  if (st == KR_ERR) return why;
  return kr_arena_printf(arena, "pass '%s' does not apply to kernel '%s': %s", pass, kernel, why);
}

/* ---- Kernel handles ----------------------------------------------------------------------------- */

/* The handle k:apply / k:try was called on must be the one the closure belongs to (upvalue 3),
 * still naming its kernel. */
static void check_self(lua_State *L, const char *kernel, const char *fn) {
  if (!lua_rawequal(L, 1, lua_upvalueindex(3)))
    luaL_error(L, "bad self for %s of kernel '%s': call it as k:%s(pass, params) on the handle "
                  "kr.kernel returned (got a %s as self)", fn, kernel, fn, luaL_typename(L, 1));
  lua_pushliteral(L, "name");
  lua_rawget(L, 1);
  const char *now = lua_tostring(L, -1);
  if (lua_type(L, -1) != LUA_TSTRING || strcmp(now, kernel) != 0)
    luaL_error(L, "the handle of kernel '%s' had its name changed to %s%s%s; a handle keeps its "
                  "kernel: call kr.kernel(\"NAME\") for another one", kernel,
               now ? "'" : "", now ? now : luaL_typename(L, -1), now ? "'" : "");
  lua_pop(L, 1);
}

/* Runs a pass for k:apply (raise = true) or k:try. */
static int run_pass(lua_State *L, bool raise) {
  KrRecipeState *st = state(L);
  const char *kernel = lua_tostring(L, lua_upvalueindex(2));
  check_self(L, kernel, raise ? "apply" : "try");
  const char *name = check_name(L, 2, "the pass name");
  KrArena *a = st->run->arena;
  const KrPass *p = kr_pass_find(name);
  if (!p) {
    const char **names = kr_arena_alloc(a, (kr_pass_count() + 1) * sizeof *names);
    for (size_t i = 0; i < kr_pass_count(); i++) names[i] = kr_pass_at(i)->name;
    const char *near = kr_pass_suggest(name, names);
    return luaL_error(L, "unknown pass '%s'%s (passes: %s)", name,
                      near ? kr_arena_printf(a, " (did you mean '%s'?)", near) : "",
                      kr_pass_names(a));
  }
  KrRawArgs raw;
  kr__lua_raw_args(L, 3, name, a, &raw);
  KrDiags *d = kr_diags_new();
  KrPassRecord rec;
  KrStatus s = kr_doc_run_pass(st->doc, p, kernel, &raw, st->run->allow_lowering, a, &rec, d);
  const char *why = kr__diags_join(d, a);
  const char *failure = s == KR_OK ? NULL : kr_recipe_pass_failure(name, kernel, s, d, a);
  kr_diags_free(d);
  if (s == KR_OK) {
    kr_vec_push(a, &st->run->records, rec);
    if (raise) return 0;
    lua_pushboolean(L, 1);
    return 1;
  }
  if (s == KR_ERR || raise) return luaL_error(L, "%s", failure);
  kr_vec_push(a, &st->run->skipped, kr_arena_printf(a, "%s on %s: %s", name, kernel, why));
  lua_pushboolean(L, 0);
  lua_pushstring(L, why);
  return 2;
}

static int l_apply(lua_State *L) { return run_pass(L, true); }
static int l_try(lua_State *L) { return run_pass(L, false); }

static int l_kernel(lua_State *L) {
  KrRecipeState *st = state(L);
  const char *name = check_name(L, 1, "kr.kernel: the kernel name");
  const KrKernel *k = kr_model_find_launch(kr_doc_model(st->doc), name);   /* "tk<float>": its specialization */
  if (!k)
    return luaL_error(L, "no kernel '%s' in %s (kernels here: %s)", name, st->run->input_path,
                      kr_model_kernel_names(kr_doc_model(st->doc), st->run->arena));
  /* Named with template arguments, the handle keeps them: each pass finds the kernel again, the
   * explicit specialization once specialize has written it. */
  const char *handle = strchr(name, '<') ? name : k->qualified_name;
  lua_createtable(L, 0, 3);
  lua_pushstring(L, handle);
  lua_setfield(L, -2, "name");
  static const struct { const char *field; lua_CFunction fn; } methods[] = {
    {"apply", l_apply}, {"try", l_try},
  };
  for (int i = 0; i < 2; i++) {
    lua_pushlightuserdata(L, st);
    lua_pushstring(L, handle);
    lua_pushvalue(L, -3); /* the handle itself: the only table accepted as self */
    lua_pushcclosure(L, methods[i].fn, 3);
    lua_setfield(L, -2, methods[i].field);
  }
  return 1;
}

/* ---- Catalogue, parameters, precision ------------------------------------------------------------ */

static int l_kernels(lua_State *L) {
  const KrModel *m = kr_doc_model(state(L)->doc);
  lua_createtable(L, (int)m->kernels.len, 0);
  for (size_t i = 0; i < m->kernels.len; i++) {
    lua_pushstring(L, m->kernels.data[i].qualified_name);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static void push_pass(lua_State *L, const KrPass *p) {
  lua_createtable(L, 0, 5);
  lua_pushstring(L, p->name);
  lua_setfield(L, -2, "name");
  lua_pushstring(L, p->summary);
  lua_setfield(L, -2, "summary");
  lua_pushstring(L, kr_precision_name(p->precision));
  lua_setfield(L, -2, "precision");
  lua_createtable(L, (int)p->nparams, 0);
  for (size_t i = 0; i < p->nparams; i++) {
    const KrParamSpec *s = &p->params[i];
    lua_createtable(L, 0, 4);
    lua_pushstring(L, s->name);
    lua_setfield(L, -2, "name");
    lua_pushstring(L, kr_param_type_name(s->type));
    lua_setfield(L, -2, "type");
    lua_pushstring(L, s->def ? s->def : "");
    lua_setfield(L, -2, "default");
    lua_pushstring(L, s->doc);
    lua_setfield(L, -2, "doc");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "params");
}

static int l_passes(lua_State *L) {
  lua_createtable(L, (int)kr_pass_count(), 0);
  for (size_t i = 0; i < kr_pass_count(); i++) {
    push_pass(L, kr_pass_at(i));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static int l_pass(lua_State *L) {
  const KrPass *p = kr_pass_find(check_name(L, 1, "kr.pass: the pass name"));
  if (p) push_pass(L, p);
  else lua_pushnil(L);
  return 1;
}

static void push_scalar(lua_State *L, const KrRawScalar *s) {
  switch (s->kind) {
  case KR_RAW_INT: lua_pushinteger(L, (lua_Integer)strtoll(s->text, NULL, 10)); break;
  case KR_RAW_NUMBER: lua_pushnumber(L, strtod(s->text, NULL)); break;
  case KR_RAW_BOOL: lua_pushboolean(L, strcmp(s->text, "true") == 0); break;
  default: lua_pushstring(L, s->text);
  }
}

static int l_param(lua_State *L) {
  KrRecipeState *st = state(L);
  const char *name = check_name(L, 1, "kr.param: the parameter name");
  for (size_t i = 0; i < st->run->defines.len; i++) {
    KrDefine *d = &st->run->defines.data[i];
    if (strcmp(d->name, name) != 0) continue;
    d->used = true;
    push_scalar(L, &d->value);
    return 1;
  }
  lua_settop(L, 2); /* the default, or nil */
  return 1;
}

static int l_params(lua_State *L) {
  KrRecipeState *st = state(L);
  lua_createtable(L, 0, (int)st->run->defines.len);
  for (size_t i = 0; i < st->run->defines.len; i++) {
    KrDefine *d = &st->run->defines.data[i];
    d->used = true;
    push_scalar(L, &d->value);
    lua_setfield(L, -2, d->name);
  }
  return 1;
}

static int l_allow_lowering(lua_State *L) {
  state(L)->run->allow_lowering = lua_isnone(L, 1) || lua_toboolean(L, 1);
  return 0;
}

void kr__module_open(lua_State *L, KrRecipeState *st) {
  static const luaL_Reg fns[] = {
    {"kernel", l_kernel}, {"kernels", l_kernels}, {"passes", l_passes}, {"pass", l_pass},
    {"param", l_param}, {"params", l_params}, {"allow_lowering", l_allow_lowering},
    {NULL, NULL},
  };
  lua_createtable(L, 0, 8);
  lua_pushlightuserdata(L, st);
  luaL_setfuncs(L, fns, 1);
  lua_pushstring(L, KR_VERSION);
  lua_setfield(L, -2, "version");
  lua_setglobal(L, "kr");
}
