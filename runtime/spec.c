/* runtime/spec.c: loading problem specs (spec.h) from Lua and checking them before anything
 * runs, so a mistake in a spec is reported against the spec, not as a strange kernel failure. */
#include "runtime/spec.h"

#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/model.h"
#include "frontend/types.h"
#include "passes/pass.h"
#include "recipes/sandbox.h"
#include "runtime/emu_internal.h"
#include "runtime/expr.h"

typedef struct Ld {
  lua_State *L;
  KrLua *lua;
  KrArena *a;
  KrDiags *d;
  const char *path;
  const char *text;  /* the spec's source, to locate fields that Lua no longer knows the place of */
  size_t len;
  KrSpec *s;
  bool failed;
  const KrBuildFlags *extra;   /* the command line's -I and --define, after the spec's */
  uint32_t line;               /* where bad() places its errors (a launches function's line), or 0 */
  bool one;                    /* the checks evaluate expressions at one case only (`at`: a test */
  size_t at;                   /* case, SIZE_MAX the benchmark sizes), not at every one */
} Ld;

static void bad(Ld *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(Ld *ld, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *m = kr_arena_vprintf(ld->a, fmt, ap);
  va_end(ap);
  kr_diag_pos(ld->d, KR_DIAG_ERROR, ld->path, ld->line, 0, "%s", m);
  ld->failed = true;
}

/* ---- Unknown fields -------------------------------------------------------------------------------- */

static const char *known_list(Ld *ld, const char *const *known) {
  KrBuf b = {0};
  for (const char *const *k = known; *k; k++) kr_buf_printf(&b, "%s%s", k == known ? "" : ", ", *k);
  const char *r = kr_arena_strdup(ld->a, b.data ? b.data : "");
  kr_buf_free(&b);
  return r;
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Where `key = ` is written in the spec, when it is written exactly once outside `--` comments;
 * Lua keeps no positions of table fields, so an unknown field is found again in the text. Two
 * places (or none, for a key built at run time) give no position rather than a wrong one. */
static bool find_field(const Ld *ld, const char *key, uint32_t *line, uint32_t *col) {
  size_t klen = strlen(key), found = 0;
  uint32_t ln = 1, c0 = 0; /* c0: offset of the current line's start */
  bool comment = false;
  for (size_t i = 0; i < ld->len; i++) {
    char ch = ld->text[i];
    if (ch == '\n') {
      ln++, c0 = (uint32_t)i + 1, comment = false;
      continue;
    }
    if (comment) continue;
    if (ch == '-' && i + 1 < ld->len && ld->text[i + 1] == '-') {
      comment = true;
      continue;
    }
    if (i + klen > ld->len || memcmp(ld->text + i, key, klen) != 0) continue;
    if (i > 0 && ident_char(ld->text[i - 1])) continue;
    size_t j = i + klen;
    while (j < ld->len && (ld->text[j] == ' ' || ld->text[j] == '\t')) j++;
    if (j >= ld->len || ld->text[j] != '=' || (j + 1 < ld->len && ld->text[j + 1] == '=')) continue;
    if (++found > 1) return false;
    *line = ln, *col = (uint32_t)(i - c0) + 1;
  }
  return found == 1;
}

/* Refuses every key of the table on top of the stack that is not one of `known` (names) and not
 * a list position 1..npos: a misspelt field would otherwise be ignored and its default used
 * silently ("tolerence" leaving the tolerance at 1e-6). */
static void check_fields(Ld *ld, const char *const *known, lua_Integer npos, const char *where) {
  lua_State *L = ld->L;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      size_t len;
      const char *k = lua_tolstring(L, -1, &len);
      if (strlen(k) != len) { /* "rtol\0x" is not the field C would read it as */
        bad(ld, "%s: the field name \"%s\\0...\" contains a NUL byte", where, k);
        continue;
      }
      bool ok = false;
      for (const char *const *f = known; *f && !ok; f++) ok = strcmp(k, *f) == 0;
      if (ok) continue;
      const char *near = kr_pass_suggest(k, known);
      uint32_t line = 0, col = 0;
      find_field(ld, k, &line, &col);
      if (near)
        kr_diag_pos(ld->d, KR_DIAG_ERROR, ld->path, line, col,
                    "%s: unknown field '%s' (did you mean '%s'?)", where, k, near);
      else
        kr_diag_pos(ld->d, KR_DIAG_ERROR, ld->path, line, col, "%s: unknown field '%s' (fields: %s)",
                    where, k, known_list(ld, known));
      ld->failed = true;
    } else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= npos) {
      continue;
    } else if (lua_isinteger(L, -1)) {
      bad(ld, "%s: unexpected list entry [%lld]%s", where, (long long)lua_tointeger(L, -1),
          npos ? kr_arena_printf(ld->a, " (at most %lld)", (long long)npos) : " (fields go by name)");
    } else {
      bad(ld, "%s: unexpected %s key (fields go by name)", where, luaL_typename(L, -1));
    }
  }
}

/* A list (the table on top of the stack) must have only the keys 1..#list: { "x", y = 2 } or a
 * list with a hole would lose entries without a word. */
static void check_list(Ld *ld, const char *where) {
  lua_State *L = ld->L;
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 && lua_tointeger(L, -1) <= n) continue;
    if (lua_type(L, -1) == LUA_TSTRING)
      bad(ld, "%s: a list cannot have the field '%s'", where, lua_tostring(L, -1));
    else if (lua_isinteger(L, -1))
      bad(ld, "%s: entry [%lld] is past the end of the list (length %lld)", where,
          (long long)lua_tointeger(L, -1), (long long)n);
    else
      bad(ld, "%s: a list cannot have a %s key", where, luaL_typename(L, -1));
  }
}

/* Whether the value at `idx` is a whole number, an integer or a float that holds one exactly (2^k
 * is a float in Lua 5.4, and a launch list built by a Lua loop meets it): its value in *v. */
static bool whole_number(lua_State *L, int idx, lua_Integer *v) {
  int ok = 0;
  *v = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &ok) : 0;
  return ok;
}

/* What the value at `idx` is, for messages: 2.5, -3, true, the string "4", a table. */
static const char *got(Ld *ld, int idx) {
  lua_State *L = ld->L;
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) return kr_arena_printf(ld->a, "%lld", (long long)lua_tointeger(L, idx));
    /* 4.0 reads as 4 in %g; a float that is a whole number is shown as Lua shows it */
    double x = (double)lua_tonumber(L, idx);
    return kr_arena_printf(ld->a, fabs(x) < 1e15 && x == floor(x) ? "%.1f" : "%.17g", x);
  case LUA_TSTRING: return kr_arena_printf(ld->a, "the string \"%s\"", lua_tostring(L, idx));
  case LUA_TBOOLEAN: return lua_toboolean(L, idx) ? "true" : "false";
  case LUA_TNIL: return "nothing";
  default: return kr_arena_printf(ld->a, "a %s", luaL_typename(L, idx));
  }
}

/* ---- Reading Lua values (the table being read is on top of the stack) -------------------------- */

static const char *opt_string(Ld *ld, const char *key, const char *where) {
  lua_getfield(ld->L, -1, key);
  const char *r = NULL;
  size_t len;
  lua_Integer w;
  if (lua_type(ld->L, -1) == LUA_TSTRING && strlen(lua_tolstring(ld->L, -1, &len)) != len)
    bad(ld, "%s: '%s' \"%s\\0...\" contains a NUL byte", where, key, lua_tostring(ld->L, -1));
  else if (lua_type(ld->L, -1) == LUA_TSTRING) r = kr_arena_strdup(ld->a, lua_tostring(ld->L, -1));
  else if (whole_number(ld->L, -1, &w)) r = kr_arena_printf(ld->a, "%lld", (long long)w);
  else if (!lua_isnil(ld->L, -1)) bad(ld, "%s: '%s' must be a string or an integer, got %s", where, key, got(ld, -1));
  lua_pop(ld->L, 1);
  return r;
}

static const char *req_string(Ld *ld, const char *key, const char *where) {
  const char *r = opt_string(ld, key, where);
  if (!r && !ld->failed) bad(ld, "%s: '%s' is missing", where, key);
  return r;
}

static double opt_number(Ld *ld, const char *key, double def, const char *where) {
  lua_getfield(ld->L, -1, key);
  double r = def;
  if (lua_type(ld->L, -1) == LUA_TNUMBER) r = lua_tonumber(ld->L, -1);
  else if (!lua_isnil(ld->L, -1)) bad(ld, "%s: '%s' must be a number, got %s", where, key, got(ld, -1));
  lua_pop(ld->L, 1);
  return r;
}

/* Reads a value that may be one expression or a list of up to three (grid, block). */
static void read_dims(Ld *ld, const char *key, const char *out[3], const char *def, const char *where) {
  out[0] = def, out[1] = "1", out[2] = "1";
  lua_Integer w;
  lua_getfield(ld->L, -1, key);
  if (lua_istable(ld->L, -1)) {
    lua_Integer n = (lua_Integer)lua_rawlen(ld->L, -1);
    if (n < 1 || n > 3) bad(ld, "%s: '%s' takes 1 to 3 values (x, y, z)", where, key);
    else check_list(ld, kr_arena_printf(ld->a, "%s: %s", where, key));
    for (lua_Integer i = 1; i <= n && i <= 3; i++) {
      lua_rawgeti(ld->L, -1, i);
      if (whole_number(ld->L, -1, &w)) out[i - 1] = kr_arena_printf(ld->a, "%lld", (long long)w);
      else if (lua_type(ld->L, -1) == LUA_TSTRING) out[i - 1] = kr_arena_strdup(ld->a, lua_tostring(ld->L, -1));
      else bad(ld, "%s: %s[%lld] must be an integer or an expression, got %s", where, key, (long long)i, got(ld, -1));
      lua_pop(ld->L, 1);
    }
  } else if (whole_number(ld->L, -1, &w)) {
    out[0] = kr_arena_printf(ld->a, "%lld", (long long)w);
  } else if (lua_type(ld->L, -1) == LUA_TSTRING) {
    out[0] = kr_arena_strdup(ld->a, lua_tostring(ld->L, -1));
  } else if (!lua_isnil(ld->L, -1) || !def) {
    bad(ld, "%s: '%s' must be an integer, an expression or a list of them, got %s", where, key, got(ld, -1));
  }
  lua_pop(ld->L, 1);
}

/* ---- Sections ------------------------------------------------------------------------------------ */

static int sym_cmp(const void *a, const void *b) {
  return strcmp(((const KrSizeSym *)a)->name, ((const KrSizeSym *)b)->name);
}

/* Reads sizes = { name = { bench = N, test = {…} } }. Lua gives table keys in no fixed order, so
 * the symbols are sorted by name: reports and test cases then come out the same every run. */
static void read_sizes(Ld *ld) {
  lua_getfield(ld->L, -1, "sizes");
  if (!lua_istable(ld->L, -1)) bad(ld, "'sizes' must be a table: sizes = { n = { bench = 1024, test = {1, 7, 100} } }");
  else {
    lua_pushnil(ld->L);
    while (lua_next(ld->L, -2)) {
      KrSizeSym sym = {0};
      if (lua_type(ld->L, -2) != LUA_TSTRING || !lua_istable(ld->L, -1)) {
        bad(ld, "sizes: each entry is name = { bench = N, test = {...} }");
        lua_pop(ld->L, 1);
        continue;
      }
      sym.name = kr_arena_strdup(ld->a, lua_tostring(ld->L, -2));
      const char *where = kr_arena_printf(ld->a, "sizes.%s", sym.name);
      static const char *const fields[] = {"bench", "test", NULL};
      check_fields(ld, fields, 0, where);
      lua_getfield(ld->L, -1, "bench");
      if (!lua_isinteger(ld->L, -1) || lua_tointeger(ld->L, -1) < 1)
        bad(ld, "%s: 'bench' must be a positive integer, got %s", where, got(ld, -1));
      sym.bench = lua_tointeger(ld->L, -1);
      lua_pop(ld->L, 1);
      lua_getfield(ld->L, -1, "test");
      lua_Integer n = lua_istable(ld->L, -1) ? (lua_Integer)lua_rawlen(ld->L, -1) : 0;
      if (n == 0) bad(ld, "%s: 'test' must be a non-empty list of small sizes", where);
      else check_list(ld, kr_arena_printf(ld->a, "%s.test", where));
      for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(ld->L, -1, i);
        if (!lua_isinteger(ld->L, -1) || lua_tointeger(ld->L, -1) < 0)
          bad(ld, "%s: test[%lld] must be an integer, 0 or more, got %s", where, (long long)i, got(ld, -1));
        kr_vec_push(ld->a, &sym.tests, (int64_t)lua_tointeger(ld->L, -1));
        lua_pop(ld->L, 1);
      }
      lua_pop(ld->L, 1);
      kr_vec_push(ld->a, &ld->s->sizes, sym);
      lua_pop(ld->L, 1);
    }
  }
  lua_pop(ld->L, 1);
  if (ld->s->sizes.len > 1) qsort(ld->s->sizes.data, ld->s->sizes.len, sizeof *ld->s->sizes.data, sym_cmp);
}

static bool parse_enum(const char *s, const char *const *names, int n, int *out) {
  for (int i = 0; i < n; i++)
    if (s && strcmp(s, names[i]) == 0) return *out = i, true;
  return false;
}

/* The two numbers of a fill mean what its kind says: uniform and ints draw from [lo, hi] (lo <=
 * hi; whole numbers for ints), normal from a mean and a standard deviation that is not negative. */
static void fill_bounds_ok(Ld *ld, const KrBufferSpec *b, const char *kind, const char *where) {
  double lo = b->fill.a, hi = b->fill.b;
  if ((b->fill.kind == KR_FILL_UNIFORM || b->fill.kind == KR_FILL_INTS) && !(lo <= hi))
    bad(ld, "%s: fill {\"%s\", %g, %g}: the low bound is above the high one", where, kind, lo, hi);
  else if (b->fill.kind == KR_FILL_INTS && (lo != floor(lo) || hi != floor(hi)))
    bad(ld, "%s: fill {\"ints\", %g, %g}: the bounds of an ints fill must be whole numbers", where, lo, hi);
  else if (b->fill.kind == KR_FILL_NORMAL && !(hi >= 0))
    bad(ld, "%s: fill {\"normal\", %g, %g}: the standard deviation (the second number) is negative", where, lo, hi);
}

static void read_fill(Ld *ld, KrBufferSpec *b, const char *where) {
  lua_getfield(ld->L, -1, "fill");
  b->fill.kind = b->role == KR_ROLE_INPUT || b->role == KR_ROLE_INOUT ? KR_FILL_UNIFORM : KR_FILL_ZERO;
  b->fill.a = -1, b->fill.b = 1;
  if (lua_istable(ld->L, -1)) {
    static const char *const fields[] = {"cols", "rowptr", "nnz", NULL};
    check_fields(ld, fields, 3, kr_arena_printf(ld->a, "%s: fill", where));
    static const char *const kinds[] = {"uniform", "normal", "ints", "csr_rowptr", "csr_colind", "zero"};
    lua_rawgeti(ld->L, -1, 1);
    const char *k = lua_tostring(ld->L, -1);
    int kind = KR_FILL_UNIFORM;
    if (!parse_enum(k, kinds, 6, &kind))
      bad(ld, "%s: fill kind '%s' unknown (uniform, normal, ints, csr_rowptr, csr_colind, zero)", where, k ? k : "?");
    b->fill.kind = (KrFillKind)kind;
    lua_pop(ld->L, 1);
    double *bounds[2] = {&b->fill.a, &b->fill.b};
    for (int i = 0; i < 2; i++) {
      lua_rawgeti(ld->L, -1, i + 2);
      if (lua_type(ld->L, -1) == LUA_TNUMBER) *bounds[i] = lua_tonumber(ld->L, -1);
      else if (!lua_isnil(ld->L, -1))
        bad(ld, "%s: fill[%d] must be a number, got a %s", where, i + 2, luaL_typename(ld->L, -1));
      lua_pop(ld->L, 1);
    }
    fill_bounds_ok(ld, b, k, where);
    b->fill.cols = opt_string(ld, "cols", where);
    b->fill.rowptr = opt_string(ld, "rowptr", where);
    b->fill.nnz = opt_string(ld, "nnz", where);
    if (b->fill.kind == KR_FILL_CSR_ROWPTR && !b->fill.nnz) bad(ld, "%s: csr_rowptr needs nnz = \"expression\"", where);
    if (b->fill.kind == KR_FILL_CSR_COLIND && (!b->fill.cols || !b->fill.rowptr))
      bad(ld, "%s: csr_colind needs rowptr = \"buffer\" and cols = \"expression\"", where);
  } else if (!lua_isnil(ld->L, -1)) {
    bad(ld, "%s: 'fill' must be a table like {\"uniform\", -1, 1}", where);
  }
  lua_pop(ld->L, 1);
}

static void read_buffers(Ld *ld) {
  static const char *const dtypes[] = {"fp32", "fp16", "bf16", "int32", "int64"};
  static const char *const roles[] = {"input", "output", "inout", "temp"};
  lua_getfield(ld->L, -1, "buffers");
  lua_Integer n = lua_istable(ld->L, -1) ? (lua_Integer)lua_rawlen(ld->L, -1) : 0;
  if (n == 0) bad(ld, "'buffers' must be a non-empty list: { {name = \"x\", dtype = \"fp32\", count = \"n\", role = \"input\"}, ... }");
  else check_list(ld, "buffers");
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(ld->L, -1, i);
    KrBufferSpec b = {0};
    const char *where = kr_arena_printf(ld->a, "buffers[%lld]", (long long)i);
    if (!lua_istable(ld->L, -1)) {
      bad(ld, "%s must be a table like {name = \"x\", dtype = \"fp32\", count = \"n\", role = \"input\"}, got a %s",
          where, luaL_typename(ld->L, -1));
      lua_pop(ld->L, 1);
      continue;
    }
    static const char *const fields[] = {"name", "dtype", "count", "role", "fill", NULL};
    b.name = req_string(ld, "name", where);
    if (b.name) where = kr_arena_printf(ld->a, "buffers[%lld] '%s'", (long long)i, b.name);
    check_fields(ld, fields, 0, where);
    b.count = req_string(ld, "count", where);
    int v = 0;
    const char *dt = opt_string(ld, "dtype", where);
    if (!parse_enum(dt ? dt : "fp32", dtypes, 5, &v)) bad(ld, "%s: dtype '%s' unknown (fp32, fp16, bf16, int32, int64)", where, dt);
    b.dtype = (KrDtype)v;
    const char *role = req_string(ld, "role", where);
    if (role && !parse_enum(role, roles, 4, &v)) bad(ld, "%s: role '%s' unknown (input, output, inout, temp)", where, role);
    b.role = (KrRole)v;
    read_fill(ld, &b, where);
    kr_vec_push(ld->a, &ld->s->buffers, b);
    lua_pop(ld->L, 1);
  }
  lua_pop(ld->L, 1);
}

static const KrBufferSpec *find_buffer(const KrSpec *s, const char *name) {
  for (size_t i = 0; i < s->buffers.len; i++)
    if (strcmp(s->buffers.data[i].name, name) == 0) return &s->buffers.data[i];
  return NULL;
}

/* "x, y, out": the buffers' names, for messages. */
static const char *buffer_names(const KrSpec *s, KrArena *a) {
  KrBuf b = {0};
  for (size_t i = 0; i < s->buffers.len; i++) kr_buf_printf(&b, "%s%s", i ? ", " : "", s->buffers.data[i].name);
  const char *r = kr_arena_strdup(a, b.data ? b.data : "none");
  kr_buf_free(&b);
  return r;
}

/* { buf = "y", offset = "1" } (the table on top of the stack): buffer y passed at element 1. */
static void read_buffer_arg(Ld *ld, KrArgSpec *arg, const char *where) {
  static const char *const fields[] = {"buf", "offset", NULL};
  check_fields(ld, fields, 0, where);
  arg->kind = KR_ARG_BUFFER;
  arg->text = req_string(ld, "buf", where);
  arg->offset = opt_string(ld, "offset", where);
  if (!arg->text) arg->text = "?";
  else if (!find_buffer(ld->s, arg->text))
    bad(ld, "%s: buf '%s' names no buffer (buffers: %s)", where, arg->text, buffer_names(ld->s, ld->a));
}

static void read_args(Ld *ld, KrLaunchSpec *l, const char *where) {
  lua_State *L = ld->L;
  lua_getfield(L, -1, "args");
  lua_Integer n = lua_istable(L, -1) ? (lua_Integer)lua_rawlen(L, -1) : -1;
  if (n < 0) bad(ld, "%s: 'args' must be a list of buffer names, { buf = name, offset = expression }, expressions and numbers", where);
  else check_list(ld, kr_arena_printf(ld->a, "%s: args", where));
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    KrArgSpec a = {.kind = KR_ARG_NUMBER, .text = "?"};
    if (lua_type(L, -1) == LUA_TNUMBER) {
      a.number = lua_tonumber(L, -1);
      a.text = kr_arena_strdup(ld->a, got(ld, -1));
    } else if (lua_type(L, -1) == LUA_TSTRING) {
      a.text = kr_arena_strdup(ld->a, lua_tostring(L, -1));
      a.kind = find_buffer(ld->s, a.text) ? KR_ARG_BUFFER : KR_ARG_EXPR;
    } else if (lua_istable(L, -1)) {
      read_buffer_arg(ld, &a, kr_arena_printf(ld->a, "%s: args[%lld]", where, (long long)i));
    } else {
      bad(ld, "%s: args[%lld] must be a buffer name, { buf = name, offset = expression }, an expression or a "
          "number, got %s", where, (long long)i, got(ld, -1));
    }
    kr_vec_push(ld->a, &l->args, a);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Reads the list of launches on top of the stack into *out; `where` names it in messages
 * ("launches", or a launches function's list at some sizes). */
static void read_launch_list(Ld *ld, KrLaunchList *out, const char *where) {
  lua_State *L = ld->L;
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  check_list(ld, where);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    KrLaunchSpec l = {0};
    const char *w = kr_arena_printf(ld->a, "%s[%lld]", where, (long long)i);
    if (!lua_istable(L, -1)) {
      bad(ld, "%s must be a table like {kernel = \"k\", grid = ..., block = ..., args = {...}}, got %s", w, got(ld, -1));
      lua_pop(L, 1);
      continue;
    }
    static const char *const fields[] = {"kernel", "grid", "block", "shmem", "args", NULL};
    check_fields(ld, fields, 0, w);
    l.kernel = req_string(ld, "kernel", w);
    if (!l.kernel) l.kernel = "?";
    read_dims(ld, "grid", l.grid, NULL, w);
    read_dims(ld, "block", l.block, NULL, w);
    l.shmem = opt_string(ld, "shmem", w);
    if (!l.shmem) l.shmem = "0";
    read_args(ld, &l, w);
    kr_vec_push(ld->a, out, l);
    lua_pop(L, 1);
  }
}

/* "test case 2 (n=7, m=3)", "the benchmark sizes (n=1048576)": a case for messages. */
static const char *case_name(const KrSpec *s, size_t c, const int64_t *v, KrArena *a) {
  KrBuf b = {0};
  for (size_t i = 0; i < s->sizes.len; i++) kr_buf_printf(&b, "%s%s=%lld", i ? ", " : "", s->sizes.data[i].name, (long long)v[i]);
  const char *r = c == SIZE_MAX ? kr_arena_printf(a, "the benchmark sizes (%s)", b.data ? b.data : "")
                                : kr_arena_printf(a, "test case %zu (%s)", c + 1, b.data ? b.data : "");
  kr_buf_free(&b);
  return r;
}

/* Calls the launches function at stack index `fn` with the size values `v` ({ n = 7, ... }) and
 * reads the list it returns into *out. Its errors keep the spec's path and the line Lua gives; a
 * list of the wrong shape is reported at the line where the function is defined; each message
 * starts with `where`, which names the sizes. */
static void call_launches(Ld *ld, int fn, const int64_t *v, KrLaunchList *out, const char *where) {
  lua_State *L = ld->L;
  lua_Debug ar;
  lua_pushvalue(L, fn);
  lua_getinfo(L, ">S", &ar);   /* pops the copy */
  lua_pushvalue(L, fn);
  lua_createtable(L, 0, (int)ld->s->sizes.len);
  for (size_t i = 0; i < ld->s->sizes.len; i++) {
    lua_pushinteger(L, (lua_Integer)v[i]);
    lua_setfield(L, -2, ld->s->sizes.data[i].name);
  }
  KrDiags *scratch = kr_diags_new();
  KrStatus st = kr_lua_pcall(ld->lua, 1, 1, scratch);
  for (size_t i = 0; i < scratch->items.len; i++) {
    const KrDiag *g = &scratch->items.data[i];
    kr_diag_pos(ld->d, g->severity, g->path ? g->path : ld->path, g->line, g->col, "%s: %s", where, g->message);
  }
  kr_diags_free(scratch);
  if (st != KR_OK) {
    ld->failed = true;
    return;
  }
  uint32_t outer = ld->line;
  ld->line = ar.linedefined > 0 ? (uint32_t)ar.linedefined : 0;
  if (!lua_istable(L, -1)) bad(ld, "%s: the launches function returned %s, not a list of launches", where, got(ld, -1));
  else read_launch_list(ld, out, kr_arena_printf(ld->a, "%s: launches", where));
  ld->line = outer;
  lua_pop(L, 1);
}

/* launches = { ... }, or launches = function(s) ... return list end: the function is called here
 * at the benchmark sizes (s->launches), and again for each test case by the checks. */
static void read_launches(Ld *ld) {
  lua_State *L = ld->L;
  lua_getfield(L, -1, "launches");
  if (lua_isfunction(L, -1)) {
    ld->s->text = ld->text, ld->s->text_len = ld->len;
    if (!ld->failed) {   /* the sizes it is called with are read and sound */
      int64_t *v = kr_arena_alloc(ld->a, (ld->s->sizes.len + 1) * sizeof *v);
      kr_spec_case(ld->s, SIZE_MAX, v);
      const char *where = kr_arena_printf(ld->a, "launches function at %s", case_name(ld->s, SIZE_MAX, v, ld->a));
      call_launches(ld, lua_gettop(L), v, &ld->s->launches, where);
      if (!ld->failed && ld->s->launches.len == 0) bad(ld, "%s: it returned no launches; at the benchmark sizes something must run", where);
    }
  } else {
    lua_Integer n = lua_istable(L, -1) ? (lua_Integer)lua_rawlen(L, -1) : 0;
    if (n == 0)
      bad(ld, "'launches' must be a non-empty list: { {kernel = \"k\", grid = \"cdiv(n, 256)\", block = 256, args = {...}} }, "
          "or a function of the sizes that returns one: launches = function(s) ... end");
    else read_launch_list(ld, &ld->s->launches, "launches");
  }
  lua_pop(L, 1);
}

/* ---- Checks -------------------------------------------------------------------------------------- */

typedef struct SymCtx {
  const KrSpec *s;
  const int64_t *values;
} SymCtx;

static bool lookup_sym(void *ctx, const char *name, int64_t *v) {
  SymCtx *c = ctx;
  for (size_t i = 0; i < c->s->sizes.len; i++)
    if (strcmp(c->s->sizes.data[i].name, name) == 0) return *v = c->values[i], true;
  return false;
}

static const char *symbol_names(const KrSpec *s, KrArena *a) {
  KrBuf b = {0};
  for (size_t i = 0; i < s->sizes.len; i++) kr_buf_printf(&b, "%s%s", i ? ", " : "", s->sizes.data[i].name);
  const char *r = kr_arena_strdup(a, b.data ? b.data : "none");
  kr_buf_free(&b);
  return r;
}

/* A nearby size symbol or buffer name for an undefined `name`: "; did you mean 'n'?", a note that
 * a buffer goes to an argument of its own, or "". */
static const char *name_hint(const Ld *ld, const char *name) {
  if (find_buffer(ld->s, name))
    return kr_arena_printf(ld->a, "; '%s' is a buffer, which is passed as an argument of its own, not inside an expression", name);
  const char **known = kr_arena_alloc(ld->a, (ld->s->sizes.len + ld->s->buffers.len + 1) * sizeof *known);
  size_t n = 0;
  for (size_t i = 0; i < ld->s->sizes.len; i++) known[n++] = ld->s->sizes.data[i].name;
  for (size_t i = 0; i < ld->s->buffers.len; i++) known[n++] = ld->s->buffers.data[i].name;
  const char *near = kr_pass_suggest(name, known);
  return near ? kr_arena_printf(ld->a, "; did you mean '%s'?", near) : "";
}

/* Why `e` failed to evaluate, with a hint when a name is undefined. */
static void expr_failed(Ld *ld, const char *where, const char *e, const char *why) {
  const char *hint = "";
  const char *q = strncmp(why, "undefined symbol '", 18) == 0 ? why + 18 : NULL;
  if (q && strchr(q, '\'')) hint = name_hint(ld, kr_arena_strndup(ld->a, q, (size_t)(strchr(q, '\'') - q)));
  bad(ld, "%s: '%s': %s%s (symbols: %s)", where, e, why, hint, symbol_names(ld->s, ld->a));
}

/* Steps through the cases the checks evaluate at (start with *k = 0): every test case, then the
 * benchmark sizes (*c == SIZE_MAX); with ld->one, only ld->at. Sets their values in `vals`. */
static bool next_case(const Ld *ld, size_t *k, size_t *c, int64_t *vals) {
  size_t n = kr_spec_ncases(ld->s);
  while (*k <= n) {
    size_t at = *k == n ? SIZE_MAX : *k;
    (*k)++;
    if (ld->one && at != ld->at) continue;
    *c = at;
    kr_spec_case(ld->s, at, vals);
    return true;
  }
  return false;
}

/* What an expression's value must be at every case. */
typedef enum {
  ANY_SIGN,
  NOT_NEGATIVE,
  POSITIVE,
  BENCH_POSITIVE,   /* 0 or more at the test cases, more at the benchmark sizes (a grid) */
} Sign;

/* Evaluates `e` at each case in scope. An integer of the given sign is needed, unless `floating`
 * (a float parameter's argument: either kind, any value); `need` says who needs the integer, for
 * the message about a floating-point one (", but parameter 'n' is 'int'"). */
static void check_value(Ld *ld, const char *e, const char *where, Sign sign, bool floating, const char *need) {
  if (!e) return;
  int64_t *vals = kr_arena_alloc(ld->a, (ld->s->sizes.len + 1) * sizeof *vals);
  size_t k = 0, c;
  while (next_case(ld, &k, &c, vals)) {
    SymCtx ctx = {ld->s, vals};
    KrExprValue v;
    const char *why;
    if (kr_expr_eval_value(e, lookup_sym, &ctx, &v, ld->a, &why) != KR_OK) {
      expr_failed(ld, where, e, why);
      return;
    }
    if (floating) continue;
    if (v.is_float) {
      bad(ld, "%s: '%s' is a floating-point expression%s; an integer one is needed (as in C, 1 / n is "
          "integer division and 1.0 / n is not)", where, e, need ? need : "");
      return;
    }
    bool pos = sign == POSITIVE || (sign == BENCH_POSITIVE && c == SIZE_MAX);
    if ((pos && v.i <= 0) || (sign != ANY_SIGN && v.i < 0)) {
      bad(ld, "%s: '%s' is %lld at %s; it must %s", where, e, (long long)v.i, case_name(ld->s, c, vals, ld->a),
          pos ? "be positive" : "not be negative");
      return;
    }
  }
}

static void check_expr(Ld *ld, const char *e, const char *where, Sign sign) {
  check_value(ld, e, where, sign, false, NULL);
}

/* ---- Buffer element types against kernel parameters --------------------------------------------- */

/* What a pointee type name says about the buffer it may point into: the dtype it matches, or
 * "any" for types that view any buffer (void, the character types), or "unknown" for names the
 * model cannot resolve (typedefs, structs, template parameters), which are not guessed at. */
typedef enum { PT_DTYPE, PT_ANY, PT_UNKNOWN, PT_OTHER } PointeeKind;

static PointeeKind pointee_kind(const char *base, KrDtype *dt) {
  static const struct { const char *name; KrDtype dt; } known[] = {
    {"float", KR_DT_F32}, {"float2", KR_DT_F32}, {"float4", KR_DT_F32},
    {"half", KR_DT_F16}, {"__half", KR_DT_F16}, {"half2", KR_DT_F16}, {"__half2", KR_DT_F16},
    {"__nv_bfloat16", KR_DT_BF16}, {"nv_bfloat16", KR_DT_BF16}, {"__nv_bfloat162", KR_DT_BF16},
    {"nv_bfloat162", KR_DT_BF16},
    {"int", KR_DT_I32}, {"signed", KR_DT_I32}, {"signed int", KR_DT_I32}, {"unsigned", KR_DT_I32},
    {"unsigned int", KR_DT_I32}, {"int32_t", KR_DT_I32}, {"uint32_t", KR_DT_I32},
    {"int2", KR_DT_I32}, {"int4", KR_DT_I32},
    {"long long", KR_DT_I64}, {"long long int", KR_DT_I64}, {"unsigned long long", KR_DT_I64},
    {"unsigned long long int", KR_DT_I64}, {"long", KR_DT_I64}, {"long int", KR_DT_I64},
    {"unsigned long", KR_DT_I64}, {"int64_t", KR_DT_I64}, {"uint64_t", KR_DT_I64},
    {"size_t", KR_DT_I64}, {"ptrdiff_t", KR_DT_I64}, {"longlong2", KR_DT_I64},
  };
  static const char *const any[] = {"void", "char", "signed char", "unsigned char", "uint8_t", "int8_t"};
  static const char *const other[] = {"double", "double2", "short", "unsigned short", "int16_t",
                                      "uint16_t", "bool", "long double"};
  if (strncmp(base, "std::", 5) == 0) base += 5;
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (strcmp(base, known[i].name) == 0) return *dt = known[i].dt, PT_DTYPE;
  for (size_t i = 0; i < sizeof any / sizeof *any; i++)
    if (strcmp(base, any[i]) == 0) return PT_ANY;
  for (size_t i = 0; i < sizeof other / sizeof *other; i++)
    if (strcmp(base, other[i]) == 0) return PT_OTHER;
  return PT_UNKNOWN;
}

/* A buffer handed to a pointer parameter must hold the elements the kernel reads through it: an
 * fp32 buffer passed to `double *` would be read as half as many garbage doubles, and the run
 * would fail far from the cause. Qualifiers are not part of `base`, so const, volatile and
 * __restrict__ pointers pass; a template parameter or an unresolved name is accepted. */
static void check_buffer_type(Ld *ld, const char *where, const KrBufferSpec *b, const KrParam *p,
                              const KrKernel *k) {
  KrDtype want;
  PointeeKind pk = pointee_kind(p->base, &want);
  if (pk == PT_ANY || pk == PT_UNKNOWN) return;
  if (p->pointer_depth > 1 || p->is_reference) {
    bad(ld, "%s: buffer '%s' (%s) is passed to parameter '%s' of type '%s' (%s:%u:%u), which "
        "is not a pointer to its elements", where, b->name, kr_dtype_name(b->dtype), p->name,
        p->type, ld->s->source, p->line, p->col);
    return;
  }
  if (pk == PT_DTYPE && want == b->dtype) return;
  bad(ld, "%s: buffer '%s' has dtype %s, but parameter '%s' of kernel '%s' is '%s' (%s:%u:%u)%s",
      where, b->name, kr_dtype_name(b->dtype), p->name, k->name, p->type, ld->s->source, p->line,
      p->col, pk == PT_DTYPE ? kr_arena_printf(ld->a, "; give the buffer dtype = \"%s\"", kr_dtype_name(want)) : "");
}

/* { buf = "y", offset = "1" }: the offset is a whole number of elements, 0 up to the buffer's
 * count (one past the last element is a pointer C allows; what the kernel reads from it is the
 * emulator's bounds check to judge). */
static void check_offset(Ld *ld, const char *where, size_t j, const KrArgSpec *a) {
  const KrBufferSpec *b = find_buffer(ld->s, a->text);
  if (!a->offset || !b) return;
  const char *w = kr_arena_printf(ld->a, "%s: argument %zu '%s': offset", where, j + 1, a->text);
  size_t before = ld->d->nerrors;
  check_expr(ld, a->offset, w, NOT_NEGATIVE);
  if (ld->d->nerrors > before) return;
  int64_t *vals = kr_arena_alloc(ld->a, (ld->s->sizes.len + 1) * sizeof *vals);
  size_t k = 0, c;
  while (next_case(ld, &k, &c, vals)) {
    SymCtx ctx = {ld->s, vals};
    int64_t off, count;
    const char *why;
    if (kr_expr_eval(a->offset, lookup_sym, &ctx, &off, ld->a, &why) != KR_OK ||
        kr_expr_eval(b->count, lookup_sym, &ctx, &count, ld->a, &why) != KR_OK)
      return;   /* reported where the count is checked */
    if (off > count) {
      bad(ld, "%s '%s' is %lld at %s, past the %lld elements of buffer '%s'", w, a->offset, (long long)off,
          case_name(ld->s, c, vals, ld->a), (long long)count, b->name);
      return;
    }
  }
}

/* A bare name that is neither a buffer nor a size symbol: "x_in" for a buffer called "xin". */
static bool unknown_name(const Ld *ld, const char *text) {
  for (const char *p = text; *p; p++)
    if (!ident_char(*p) || (p == text && *p >= '0' && *p <= '9')) return false;
  for (size_t i = 0; i < ld->s->sizes.len; i++)
    if (strcmp(ld->s->sizes.data[i].name, text) == 0) return false;
  return *text && !find_buffer(ld->s, text);
}

/* Argument j of launch l for parameter p of kernel k: a buffer for a pointer, and for a scalar an
 * expression of its kind (a float parameter takes either kind, an integer one an integer
 * expression) or a number. */
static void check_arg(Ld *ld, const char *where, const KrLaunchSpec *l, size_t j, const KrKernel *k) {
  const KrArgSpec *a = &l->args.data[j];
  const KrParam *p = &k->params.data[j];
  bool ptr = p->pointer_depth > 0;
  if (a->kind == KR_ARG_EXPR && unknown_name(ld, a->text)) {
    bad(ld, "%s: argument %zu '%s' names no buffer or size symbol%s (buffers: %s; sizes: %s)", where, j + 1,
        a->text, name_hint(ld, a->text), buffer_names(ld->s, ld->a), symbol_names(ld->s, ld->a));
  } else if (a->kind == KR_ARG_BUFFER && !ptr) {
    bad(ld, "%s: argument %zu '%s' is a buffer, but parameter '%s' is '%s', not a pointer", where, j + 1, a->text,
        p->name, p->type);
  } else if (a->kind == KR_ARG_BUFFER) {
    check_buffer_type(ld, where, find_buffer(ld->s, a->text), p, k);
    check_offset(ld, where, j, a);
  } else if (ptr) {
    bad(ld, "%s: argument %zu '%s' is %s, but parameter '%s' is '%s', which takes a buffer (buffers: %s)", where,
        j + 1, a->text, a->kind == KR_ARG_NUMBER ? "a number" : "an expression, not a buffer name", p->name,
        p->type, buffer_names(ld->s, ld->a));
  } else if (a->kind == KR_ARG_EXPR) {
    bool floating = kr__scalar_is_float(kr__param_scalar(k, j, l->kernel, ld->a));
    check_value(ld, a->text, kr_arena_printf(ld->a, "%s: argument %zu", where, j + 1), ANY_SIGN, floating,
                kr_arena_printf(ld->a, ", but parameter '%s' is '%s'", p->name, p->type));
  }
}

/* Launch i of a list (`list` names it: "launches", or a launches function's list at some sizes). */
static void check_launch(Ld *ld, const KrLaunchSpec *l, size_t i, const KrModel *m, const char *list) {
  const char *where = kr_arena_printf(ld->a, "%s[%zu] '%s'", list, i + 1, l->kernel);
  const char *lt = strchr(l->kernel, '<');
  char *base = kr_arena_strndup(ld->a, l->kernel, lt ? (size_t)(lt - l->kernel) : strlen(l->kernel));
  while (*base && base[strlen(base) - 1] == ' ') base[strlen(base) - 1] = 0;
  const KrKernel *k = kr_model_find_launch(m, l->kernel);
  if (!k) {
    bad(ld, "%s: no kernel '%s' in %s (kernels there: %s)", where, base, ld->s->source,
        kr_model_kernel_names(m, ld->a));
    return;
  }
  if (l->args.len != k->params.len)
    bad(ld, "%s: %zu arguments given, but kernel '%s' takes %zu (%s:%u)", where, l->args.len,
        k->name, k->params.len, ld->s->source, k->line);
  for (size_t j = 0; j < l->args.len && j < k->params.len; j++) check_arg(ld, where, l, j, k);
  for (int d = 0; d < 3; d++) {
    check_expr(ld, l->grid[d], kr_arena_printf(ld->a, "%s: grid", where), BENCH_POSITIVE);
    check_expr(ld, l->block[d], kr_arena_printf(ld->a, "%s: block", where), POSITIVE);
  }
  check_expr(ld, l->shmem, kr_arena_printf(ld->a, "%s: shmem", where), NOT_NEGATIVE);
}

/* Whether two launch names are one kernel's, blanks normalised as the emulator does
 * ("tk<float,128>", "tk<float, 128>"). */
static bool same_launch_name(const char *x, const char *y, KrArena *a) {
  return strcmp(kr__emu_norm_name(a, x), kr__emu_norm_name(a, y)) == 0;
}

/* Every kernel of a case's list must be launched at the benchmark sizes too: the emulator's module
 * is built for that list's kernels, and the passes' launch changes are matched to its launches. */
static void check_known_kernels(Ld *ld, const KrLaunchList *list, const char *where) {
  for (size_t i = 0; i < list->len; i++) {
    bool found = false;
    for (size_t j = 0; j < ld->s->launches.len && !found; j++)
      found = same_launch_name(list->data[i].kernel, ld->s->launches.data[j].kernel, ld->a);
    if (!found)
      bad(ld, "%s: launches[%zu] runs '%s', which the list at the benchmark sizes does not launch; every kernel a "
          "case launches must be launched at the benchmark sizes too (the emulator's module and the passes' "
          "launch changes are made from that list)", where, i + 1, list->data[i].kernel);
  }
}

/* A launches function: called for each test case (the benchmark sizes' list was read with the
 * spec), each list checked at its own sizes only. */
static void check_launches_fn(Ld *ld, const KrModel *m) {
  lua_State *L = ld->L;
  lua_getfield(L, -1, "launches");
  int fn = lua_gettop(L);
  lua_Debug ar;
  lua_pushvalue(L, fn);
  lua_getinfo(L, ">S", &ar);
  int64_t *v = kr_arena_alloc(ld->a, (ld->s->sizes.len + 1) * sizeof *v);
  size_t n = kr_spec_ncases(ld->s);
  for (size_t c = 0; c <= n; c++) {
    size_t at = c == n ? SIZE_MAX : c;
    kr_spec_case(ld->s, at, v);
    const char *where = kr_arena_printf(ld->a, "launches function at %s", case_name(ld->s, at, v, ld->a));
    KrLaunchList own = {0};
    const KrLaunchList *list = &ld->s->launches;
    if (at != SIZE_MAX) {
      size_t before = ld->d->nerrors;
      call_launches(ld, fn, v, &own, where);
      if (ld->d->nerrors > before) continue;
      list = &own;
    }
    uint32_t outer = ld->line;
    ld->one = true, ld->at = at, ld->line = ar.linedefined > 0 ? (uint32_t)ar.linedefined : 0;
    const char *lw = kr_arena_printf(ld->a, "%s: launches", where);
    for (size_t i = 0; i < list->len; i++) check_launch(ld, &list->data[i], i, m, lw);
    if (at != SIZE_MAX) check_known_kernels(ld, list, where);
    ld->one = false, ld->line = outer;
  }
  lua_pop(L, 1);
}

/* entry = "f" or { name = "f", args = { ... } } (read before the source is: the args as a launch's). */
static void read_entry(Ld *ld) {
  lua_State *L = ld->L;
  lua_getfield(L, -1, "entry");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  KrEntrySpec *en = kr_arena_alloc(ld->a, sizeof *en);
  memset(en, 0, sizeof *en);
  if (lua_type(L, -1) == LUA_TSTRING) {
    en->name = kr_arena_strdup(ld->a, lua_tostring(L, -1));
  } else if (lua_istable(L, -1)) {
    static const char *const fields[] = {"name", "args", NULL};
    check_fields(ld, fields, 0, "entry");
    en->name = req_string(ld, "name", "entry");
    lua_getfield(L, -1, "args");
    bool given = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (given) read_args(ld, &en->call, "entry");
    else en->call.args.len = 0;
    if (given && en->call.args.len == 0) en->call.args.data = kr_arena_alloc(ld->a, sizeof *en->call.args.data);
  } else {
    bad(ld, "'entry' must be the name of a host function of the source, \"launch_x\", or { name = \"launch_x\", "
        "args = { ... } }, got %s", got(ld, -1));
  }
  lua_getfield(L, -2, "launches");
  if (!lua_isnil(L, -1))
    bad(ld, "'entry' and 'launches' exclude each other: with entry = \"%s\", krewrite calls that function, which "
        "makes the launches; remove one of them", en->name ? en->name : "?");
  lua_pop(L, 2);
  if (!en->name) en->name = "?";
  en->call.kernel = en->name;
  for (int d = 0; d < 3; d++) en->call.grid[d] = en->call.block[d] = "1";
  en->call.shmem = "0";
  ld->s->entry = en;
}

static bool is_size(const KrSpec *s, const char *name) {
  for (size_t i = 0; i < s->sizes.len; i++)
    if (strcmp(s->sizes.data[i].name, name) == 0) return true;
  return false;
}

/* The entry's arguments by parameter name: a size symbol, a buffer, 0 for a stream. */
static void entry_args_by_name(Ld *ld, KrEntrySpec *en, const KrKernel *fn) {
  for (size_t j = 0; j < fn->params.len; j++) {
    const KrParam *p = &fn->params.data[j];
    KrArgSpec a = {.kind = KR_ARG_EXPR, .text = p->name};
    if (strcmp(p->base, "cudaStream_t") == 0 && p->pointer_depth == 0) {
      a = (KrArgSpec){.kind = KR_ARG_NUMBER, .text = "0", .number = 0};
    } else if (find_buffer(ld->s, p->name)) {
      a.kind = KR_ARG_BUFFER;
    } else if (!is_size(ld->s, p->name)) {
      bad(ld, "entry '%s': parameter '%s' ('%s', %s:%u) matches no size symbol or buffer (sizes: %s; buffers: %s); "
          "rename it, or give the arguments: entry = { name = \"%s\", args = { ... } }", en->name, p->name, p->type,
          ld->s->source, p->line, symbol_names(ld->s, ld->a), buffer_names(ld->s, ld->a), en->name);
      continue;
    }
    kr_vec_push(ld->a, &en->call.args, a);
  }
}

/* The entry is a host function of the source; its arguments (given, or by name) fit its parameters. */
static void check_entry(Ld *ld, const KrTree *t) {
  KrEntrySpec *en = (KrEntrySpec *)ld->s->entry;
  const KrKernel *fn;
  const char *why;
  if (kr__entry_fn(t, en->name, ld->a, &fn, &why) != KR_OK) {
    bad(ld, "entry '%s': %s (%s)", en->name, why, ld->s->source);
    return;
  }
  en->fn = fn;
  const char *where = kr_arena_printf(ld->a, "entry '%s'", en->name);
  size_t before = ld->d->nerrors;
  if (!en->call.args.data) entry_args_by_name(ld, en, fn);
  else if (en->call.args.len != fn->params.len)
    bad(ld, "%s: %zu arguments given, but '%s' takes %zu (%s:%u)", where, en->call.args.len, en->name,
        fn->params.len, ld->s->source, fn->line);
  if (ld->d->nerrors > before) return;
  for (size_t j = 0; j < en->call.args.len; j++) check_arg(ld, where, &en->call, j, fn);
}

static void check_spec(Ld *ld) {
  KrSpec *s = ld->s;
  for (size_t i = 0; i < s->buffers.len; i++) {
    const KrBufferSpec *b = &s->buffers.data[i];
    const char *where = kr_arena_printf(ld->a, "buffers[%zu] '%s': count", i + 1, b->name);
    check_expr(ld, b->count, where, NOT_NEGATIVE);
    check_expr(ld, b->fill.nnz, where, NOT_NEGATIVE);
    check_expr(ld, b->fill.cols, where, POSITIVE);
    if (b->fill.rowptr && !find_buffer(s, b->fill.rowptr))
      bad(ld, "buffers[%zu] '%s': fill rowptr '%s' is not a buffer", i + 1, b->name, b->fill.rowptr);
  }
  check_expr(ld, s->flops, "flops", ANY_SIGN);
  check_expr(ld, s->bytes, "bytes", ANY_SIGN);
  KrSource src;
  KrDiags *pd = kr_diags_new();
  KrArena *pa = kr_arena_new();
  KrTree *t = NULL;
  if (kr_source_read(&src, s->source, pa, pd) == KR_OK) {
    kr_source_use(&src, &s->build);
    t = kr_tree_parse(&src, pd);
  }
  if (!t || pd->nerrors) {
    bad(ld, "source '%s' cannot be read or has syntax errors", s->source);
    for (size_t i = 0; i < pd->items.len; i++) kr_vec_push(ld->d->arena, &ld->d->items, pd->items.data[i]);
  } else if (s->entry) {
    check_entry(ld, t);
  } else if (s->text) {
    check_launches_fn(ld, kr_model_new(t, pa));
  } else {
    KrModel *m = kr_model_new(t, pa);
    for (size_t i = 0; i < s->launches.len; i++) check_launch(ld, &s->launches.data[i], i, m, "launches");
  }
  kr_tree_free(t);
  kr_arena_free(pa);
  kr_diags_free(pd);
}

/* ---- Loading ------------------------------------------------------------------------------------- */

static const char *resolve(const char *spec_path, const char *rel, KrArena *a) {
  if (rel[0] == '/') return rel;
  const char *slash = strrchr(spec_path, '/');
  if (!slash) return rel;
  return kr_arena_printf(a, "%.*s/%s", (int)(slash - spec_path), spec_path, rel);
}

/* include = { "inc", "../common" } (folders, resolved against the spec's), defines = { N = 1024,
 * FAST = true, "OLD", "M=2" }: what the .cu is built with, by nvcc, the emulator and the front end. */
static void read_build(Ld *ld) {
  KrSpec *s = ld->s;
  const char *slash = s->source ? strrchr(s->source, '/') : NULL;
  s->build.source_dir = slash ? kr_arena_strndup(ld->a, s->source, slash == s->source ? 1 : (size_t)(slash - s->source)) : ".";
  lua_State *L = ld->L;
  lua_getfield(L, -1, "include");
  if (lua_istable(L, -1)) {
    for (lua_Integer i = 1;; i++) {
      lua_rawgeti(L, -1, i);
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        break;
      }
      if (lua_type(L, -1) != LUA_TSTRING) bad(ld, "include[%lld] must be a folder's path (a string), got %s", (long long)i, got(ld, -1));
      else if (kr_build_include(&s->build, resolve(ld->path, lua_tostring(L, -1), ld->a),
                                kr_arena_printf(ld->a, "%s: include[%lld]", ld->path, (long long)i), ld->a, ld->d) != KR_OK)
        ld->failed = true;
      lua_pop(L, 1);
    }
  } else if (!lua_isnil(L, -1)) {
    bad(ld, "'include' must be a list of folders like { \"inc\" }, got %s", got(ld, -1));
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "defines");
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {   /* key at -2, value at -1 */
      const char *def = NULL;
      if (lua_type(L, -2) == LUA_TNUMBER && lua_type(L, -1) == LUA_TSTRING) {
        def = lua_tostring(L, -1);   /* "NAME" or "NAME=VALUE" */
      } else if (lua_type(L, -2) == LUA_TSTRING) {
        const char *k = lua_tostring(L, -2);
        if (lua_isboolean(L, -1)) def = lua_toboolean(L, -1) ? k : NULL;   /* FAST = false: not defined */
        else if (lua_isinteger(L, -1)) def = kr_arena_printf(ld->a, "%s=%lld", k, (long long)lua_tointeger(L, -1));
        else if (lua_type(L, -1) == LUA_TNUMBER) def = kr_arena_printf(ld->a, "%s=%.17g", k, lua_tonumber(L, -1));
        else if (lua_type(L, -1) == LUA_TSTRING) def = kr_arena_printf(ld->a, "%s=%s", k, lua_tostring(L, -1));
        else bad(ld, "defines.%s must be a number, a string or a boolean, got %s", k, got(ld, -1));
      } else {
        bad(ld, "'defines' holds NAME = value pairs and \"NAME[=VALUE]\" strings, got a %s key", luaL_typename(L, -2));
      }
      if (def && kr_build_define(&s->build, def, "defines", ld->a, ld->d) != KR_OK) ld->failed = true;
      lua_pop(L, 1);
    }
  } else if (!lua_isnil(L, -1)) {
    bad(ld, "'defines' must be a table like { N = 1024, \"FAST\" }, got %s", got(ld, -1));
  }
  lua_pop(L, 1);
  kr_build_merge(&s->build, ld->extra, ld->a);   /* the command line's after the spec's: its defines win */
}

/* seeds = N, a positive integer; 2.5 or "3" is a mistake worth naming, not a number to round. */
static uint32_t read_seeds(Ld *ld) {
  lua_getfield(ld->L, -1, "seeds");
  uint32_t r = 3;
  if (lua_isinteger(ld->L, -1) && lua_tointeger(ld->L, -1) >= 1 && lua_tointeger(ld->L, -1) <= 1000000)
    r = (uint32_t)lua_tointeger(ld->L, -1);
  else if (!lua_isnil(ld->L, -1))
    bad(ld, "problem: 'seeds' must be a positive integer (at most 1000000), got %s", got(ld, -1));
  lua_pop(ld->L, 1);
  return r;
}

static void read_spec(Ld *ld) {
  KrSpec *s = ld->s;
  static const char *const fields[] = {"name", "source", "sizes", "buffers", "launches", "entry",
                                       "tolerance", "flops", "bytes", "seeds", "include", "defines", NULL};
  check_fields(ld, fields, 0, "problem");
  s->name = opt_string(ld, "name", "problem");
  const char *src = req_string(ld, "source", "problem");
  s->source = src ? resolve(ld->path, src, ld->a) : NULL;
  read_build(ld);
  read_sizes(ld);
  read_buffers(ld);
  read_entry(ld);
  if (!ld->s->entry) read_launches(ld);
  s->flops = opt_string(ld, "flops", "problem");
  s->bytes = opt_string(ld, "bytes", "problem");
  s->seeds = read_seeds(ld);
  lua_getfield(ld->L, -1, "tolerance");
  s->rtol = 1e-6;
  if (lua_istable(ld->L, -1)) {
    static const char *const tol[] = {"rtol", "atol", NULL};
    check_fields(ld, tol, 0, "tolerance");
    s->rtol = opt_number(ld, "rtol", 1e-6, "tolerance");
    s->atol = opt_number(ld, "atol", 0, "tolerance");
  } else if (!lua_isnil(ld->L, -1)) {
    bad(ld, "'tolerance' must be a table like { rtol = 1e-6 }, got a %s", luaL_typename(ld->L, -1));
  }
  lua_pop(ld->L, 1);
  if (!s->name) s->name = s->source ? s->source : "problem";
}

KrStatus kr_spec_load(const char *path, KrArena *arena, KrSpec **out, KrDiags *diags) {
  return kr_spec_load_with(path, NULL, arena, out, diags);
}

KrStatus kr_spec_load_with(const char *path, const KrBuildFlags *extra, KrArena *arena, KrSpec **out, KrDiags *diags) {
  char *text;
  size_t len;
  if (kr_file_read(path, arena, &text, &len, diags) != KR_OK) return KR_ERR;
  KrLuaLimits lim;
  kr_lua_limits_default(&lim);
  KrLua *lua = kr_lua_new(&lim);
  if (!lua) return KR_ERR;
  KrStatus st = kr_lua_run(lua, path, text, len, 1, diags);
  Ld ld = {.L = kr_lua_state(lua), .lua = lua, .a = arena, .d = diags, .path = path, .text = text, .len = len};
  if (st == KR_OK && !lua_istable(ld.L, -1)) {
    bad(&ld, "a problem spec must return a table (return { source = \"kernel.cu\", ... })");
    st = KR_ERR;
  }
  if (st == KR_OK) {
    ld.s = kr_arena_alloc(arena, sizeof *ld.s);
    ld.s->path = kr_arena_strdup(arena, path);
    ld.extra = extra;
    read_spec(&ld);
    if (!ld.failed) check_spec(&ld);
    st = ld.failed ? KR_ERR : KR_OK;
  }
  kr_lua_free(lua);
  if (st == KR_OK) *out = ld.s;
  return st;
}

/* ---- Launches at any sizes ----------------------------------------------------------------------- */

static bool at_bench(const KrSpec *s, const int64_t *sizes) {
  for (size_t i = 0; i < s->sizes.len; i++)
    if (sizes[i] != s->sizes.data[i].bench) return false;
  return true;
}

/* The spec's source runs again in a fresh sandbox for each call: no Lua state outlives the load
 * (the spec has no owner to close one), and callers on several threads each get their own. */
KrStatus kr_spec_launches(const KrSpec *s, const int64_t *sizes, KrArena *arena, const KrLaunchList **out,
                          KrDiags *diags) {
  *out = &s->launches;
  if (!s->text || at_bench(s, sizes)) return KR_OK;
  KrLua *lua = kr_lua_new(NULL);
  if (!lua) {
    kr_diag_pos(diags, KR_DIAG_ERROR, s->path, 0, 0, "out of memory to run the launches function");
    return KR_ERR;
  }
  /* Reading a list only looks the buffers up in the spec; nothing is written to it. */
  Ld ld = {.L = kr_lua_state(lua), .lua = lua, .a = arena, .d = diags, .path = s->path, .text = s->text,
           .len = s->text_len, .s = (KrSpec *)s};
  KrBuf b = {0};
  for (size_t i = 0; i < s->sizes.len; i++) kr_buf_printf(&b, "%s%s=%lld", i ? ", " : "", s->sizes.data[i].name, (long long)sizes[i]);
  const char *where = kr_arena_printf(arena, "launches function at %s", b.data ? b.data : "");
  kr_buf_free(&b);
  KrLaunchList *list = kr_arena_alloc(arena, sizeof *list);
  if (kr_lua_run(lua, s->path, s->text, s->text_len, 1, diags) != KR_OK) {
    ld.failed = true;
  } else {
    lua_getfield(ld.L, -1, "launches");
    if (!lua_isfunction(ld.L, -1)) bad(&ld, "%s: the spec's 'launches' is not a function when it runs again", where);
    else call_launches(&ld, lua_gettop(ld.L), sizes, list, where);
    if (!ld.failed) check_known_kernels(&ld, list, where);
  }
  kr_lua_free(lua);
  if (ld.failed) return KR_ERR;
  *out = list;
  return KR_OK;
}

/* ---- Scalar parameters ----------------------------------------------------------------------------- */

static bool has_word(const char *s, const char *w) { return strstr(s, w) != NULL; }

static KrScalarKind scalar_kind(const char *base) {
  if (has_word(base, "double")) return KR_SCALAR_F64;
  if (has_word(base, "float")) return KR_SCALAR_F32;
  if (has_word(base, "bfloat16")) return KR_SCALAR_BF16;
  if (has_word(base, "half")) return KR_SCALAR_F16;
  if (has_word(base, "long") || has_word(base, "size_t") || has_word(base, "64")) return KR_SCALAR_I64;
  if (has_word(base, "short") || has_word(base, "16")) return KR_SCALAR_I16;
  if (has_word(base, "char") || has_word(base, "bool") || has_word(base, "int8")) return KR_SCALAR_I8;
  return KR_SCALAR_I32;
}

KrScalarKind kr__param_scalar(const KrKernel *k, size_t j, const char *launch_kernel, KrArena *a) {
  const char *base = k->params.data[j].base;
  const char *lt = strchr(launch_kernel, '<');
  const char *args = lt ? kr_arena_strndup(a, lt + 1, strlen(lt) - 2) : NULL;
  const char *bound = kr_type_template_arg(args, kr_type_template_param(k->template_params, base, false), a);
  return scalar_kind(bound ? bound : base);
}

/* ---- Cases --------------------------------------------------------------------------------------- */

size_t kr_spec_ncases(const KrSpec *s) {
  size_t n = 0;
  for (size_t i = 0; i < s->sizes.len; i++)
    if (s->sizes.data[i].tests.len > n) n = s->sizes.data[i].tests.len;
  return n;
}

void kr_spec_case(const KrSpec *s, size_t c, int64_t *values) {
  for (size_t i = 0; i < s->sizes.len; i++) {
    const KrSizeSym *y = &s->sizes.data[i];
    values[i] = c == SIZE_MAX ? y->bench : y->tests.data[c % y->tests.len];
  }
}

size_t kr_dtype_size(KrDtype t) {
  static const size_t sz[] = {4, 2, 2, 4, 8};
  return sz[t];
}

const char *kr_dtype_name(KrDtype t) {
  static const char *const n[] = {"fp32", "fp16", "bf16", "int32", "int64"};
  return n[t];
}

/* ---- Host entry points ------------------------------------------------------------------------------ */

/* The function_declarator of a definition (through pointer and reference return types), or null. */
static TSNode fn_declarator(const KrTree *t, TSNode def) {
  TSNode d = ts_node_child_by_field_name(def, "declarator", 10);
  while (!ts_node_is_null(d) && ts_node_symbol(d) != t->sym.function_declarator)
    d = ts_node_child_by_field_name(d, "declarator", 10);
  return d;
}

static bool has_symbol(TSNode n, TSSymbol s) {
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (ts_node_symbol(ts_node_child(n, i)) == s) return true;
  return false;
}

/* Whether definition `def` is named `name` (its last component: `ns::f` is f). */
static bool fn_named(const KrTree *t, TSNode def, const char *name) {
  TSNode fd = fn_declarator(t, def);
  TSNode n = ts_node_is_null(fd) ? fd : ts_node_child_by_field_name(fd, "declarator", 10);
  if (ts_node_is_null(n)) return false;
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  const char *text = t->src->text;
  for (uint32_t i = s; i + 1 < e; i++)
    if (text[i] == ':' && text[i + 1] == ':') s = i + 2;
  return strlen(name) == e - s && memcmp(text + s, name, e - s) == 0;
}

/* The definitions named `name` in a scope (namespaces, extern "C" blocks, #if branches, templates:
 * `tmpl` says whether it is one), the first host one into *host, any other into *other. */
static void find_defs(const KrTree *t, TSNode scope, const char *name, bool tmpl, TSNode *host, TSNode *other) {
  const KrSyms *y = &t->sym;
  uint32_t n = ts_node_named_child_count(scope);
  for (uint32_t i = 0; i < n; i++) {
    TSNode c = ts_node_named_child(scope, i);
    TSSymbol s = ts_node_symbol(c);
    if (s == y->function_definition && fn_named(t, c, name)) {
      bool device = has_symbol(c, y->kw_global) || has_symbol(c, y->kw_device);
      if (!device && !tmpl && ts_node_is_null(*host)) *host = c;
      else if (device || tmpl) *other = c;
    } else if (s == y->namespace_definition || s == y->linkage_specification || s == y->template_declaration ||
               s == y->preproc_if || s == y->preproc_ifdef || s == y->preproc_else || s == y->preproc_elif ||
               s == y->declaration_list) {
      TSNode body = ts_node_child_by_field_name(c, "body", 4);
      find_defs(t, ts_node_is_null(body) ? c : body, name, tmpl || s == y->template_declaration, host, other);
    }
  }
}

KrStatus kr__entry_fn(const KrTree *t, const char *name, KrArena *arena, const KrKernel **fn, const char **why) {
  TSNode host = {0}, other = {0};
  find_defs(t, kr_tree_root(t), name, false, &host, &other);
  if (ts_node_is_null(host)) {
    *why = !ts_node_is_null(other)
      ? kr_arena_printf(arena, "'%s' (line %u) is a kernel, a __device__ function or a template, not a host function "
                               "krewrite can call", name, ts_node_start_point(other).row + 1)
      : kr_arena_printf(arena, "no host function '%s' is defined in the file", name);
    return KR_ERR;
  }
  /* The parameters are read by the model as a kernel's: the declaration is parsed again as
   * `__global__ void name(<parameters>) {}` on its own line. */
  TSNode params = ts_node_child_by_field_name(fn_declarator(t, host), "parameters", 10);
  uint32_t line = ts_node_start_point(host).row;
  KrBuf b = {0};
  for (uint32_t i = 0; i < line; i++) kr_buf_putc(&b, '\n');
  kr_buf_printf(&b, "__global__ void %s", name);
  kr_buf_append(&b, t->src->text + ts_node_start_byte(params), ts_node_end_byte(params) - ts_node_start_byte(params));
  kr_buf_puts(&b, " {}\n");
  KrSource *src = kr_arena_alloc(arena, sizeof *src);
  KrDiags *scratch = kr_diags_new();
  KrTree *tree = NULL;
  if (kr_source_from_text(src, t->src->path, kr_arena_strndup(arena, b.data, b.len), b.len, arena, scratch) == KR_OK)
    tree = kr_tree_parse(src, scratch);
  KrModel *m = tree ? kr_model_new(tree, arena) : NULL;
  *fn = m && m->kernels.len == 1 ? &m->kernels.data[0] : NULL;
  kr_tree_free(tree);
  kr_diags_free(scratch);
  kr_buf_free(&b);
  if (!*fn) *why = kr_arena_printf(arena, "the parameters of host function '%s' cannot be read", name);
  return *fn ? KR_OK : KR_ERR;
}
