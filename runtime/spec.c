/* runtime/spec.c: loading problem specs (spec.h) from Lua and checking them before anything
 * runs, so a mistake in a spec is reported against the spec, not as a strange kernel failure. */
#include "runtime/spec.h"

#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/model.h"
#include "passes/pass.h"
#include "recipes/sandbox.h"
#include "runtime/expr.h"

typedef struct Ld {
  lua_State *L;
  KrArena *a;
  KrDiags *d;
  const char *path;
  const char *text;  /* the spec's source, to locate fields that Lua no longer knows the place of */
  size_t len;
  KrSpec *s;
  bool failed;
  const KrBuildFlags *extra;   /* the command line's -I and --define, after the spec's */
} Ld;

static void bad(Ld *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(Ld *ld, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *m = kr_arena_vprintf(ld->a, fmt, ap);
  va_end(ap);
  kr_diag_pos(ld->d, KR_DIAG_ERROR, ld->path, 0, 0, "%s", m);
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

/* What the value at `idx` is, for messages: 2.5, -3, true, the string "4", a table. */
static const char *got(Ld *ld, int idx) {
  lua_State *L = ld->L;
  switch (lua_type(L, idx)) {
  case LUA_TNUMBER:
    return lua_isinteger(L, idx) ? kr_arena_printf(ld->a, "%lld", (long long)lua_tointeger(L, idx))
                                 : kr_arena_printf(ld->a, "%.17g", (double)lua_tonumber(L, idx));
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
  if (lua_type(ld->L, -1) == LUA_TSTRING && strlen(lua_tolstring(ld->L, -1, &len)) != len)
    bad(ld, "%s: '%s' \"%s\\0...\" contains a NUL byte", where, key, lua_tostring(ld->L, -1));
  else if (lua_type(ld->L, -1) == LUA_TSTRING) r = kr_arena_strdup(ld->a, lua_tostring(ld->L, -1));
  else if (lua_isinteger(ld->L, -1)) r = kr_arena_printf(ld->a, "%lld", (long long)lua_tointeger(ld->L, -1));
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
  lua_getfield(ld->L, -1, key);
  if (lua_istable(ld->L, -1)) {
    lua_Integer n = (lua_Integer)lua_rawlen(ld->L, -1);
    if (n < 1 || n > 3) bad(ld, "%s: '%s' takes 1 to 3 values (x, y, z)", where, key);
    else check_list(ld, kr_arena_printf(ld->a, "%s: %s", where, key));
    for (lua_Integer i = 1; i <= n && i <= 3; i++) {
      lua_rawgeti(ld->L, -1, i);
      if (lua_isinteger(ld->L, -1)) out[i - 1] = kr_arena_printf(ld->a, "%lld", (long long)lua_tointeger(ld->L, -1));
      else if (lua_type(ld->L, -1) == LUA_TSTRING) out[i - 1] = kr_arena_strdup(ld->a, lua_tostring(ld->L, -1));
      else bad(ld, "%s: %s[%lld] must be an integer or an expression, got %s", where, key, (long long)i, got(ld, -1));
      lua_pop(ld->L, 1);
    }
  } else if (lua_isinteger(ld->L, -1)) {
    out[0] = kr_arena_printf(ld->a, "%lld", (long long)lua_tointeger(ld->L, -1));
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
        if (!lua_isinteger(ld->L, -1) || lua_tointeger(ld->L, -1) < 1)
          bad(ld, "%s: test[%lld] must be a positive integer, got %s", where, (long long)i, got(ld, -1));
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

static void read_args(Ld *ld, KrLaunchSpec *l, const char *where) {
  lua_getfield(ld->L, -1, "args");
  lua_Integer n = lua_istable(ld->L, -1) ? (lua_Integer)lua_rawlen(ld->L, -1) : -1;
  if (n < 0) bad(ld, "%s: 'args' must be a list of buffer names, size expressions and numbers", where);
  else check_list(ld, kr_arena_printf(ld->a, "%s: args", where));
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(ld->L, -1, i);
    KrArgSpec a = {0};
    if (lua_type(ld->L, -1) == LUA_TNUMBER) {
      a.kind = KR_ARG_NUMBER;
      a.number = lua_tonumber(ld->L, -1);
      a.text = kr_arena_strdup(ld->a, lua_tostring(ld->L, -1));
    } else if (lua_type(ld->L, -1) == LUA_TSTRING) {
      a.text = kr_arena_strdup(ld->a, lua_tostring(ld->L, -1));
      a.kind = find_buffer(ld->s, a.text) ? KR_ARG_BUFFER : KR_ARG_EXPR;
    } else {
      bad(ld, "%s: args[%lld] must be a buffer name, an expression or a number", where, (long long)i);
    }
    kr_vec_push(ld->a, &l->args, a);
    lua_pop(ld->L, 1);
  }
  lua_pop(ld->L, 1);
}

static void read_launches(Ld *ld) {
  lua_getfield(ld->L, -1, "launches");
  lua_Integer n = lua_istable(ld->L, -1) ? (lua_Integer)lua_rawlen(ld->L, -1) : 0;
  if (n == 0) bad(ld, "'launches' must be a non-empty list: { {kernel = \"k\", grid = \"cdiv(n, 256)\", block = 256, args = {...}} }");
  if (n > 0) check_list(ld, "launches");
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(ld->L, -1, i);
    KrLaunchSpec l = {0};
    const char *where = kr_arena_printf(ld->a, "launches[%lld]", (long long)i);
    if (!lua_istable(ld->L, -1)) {
      bad(ld, "%s must be a table like {kernel = \"k\", grid = ..., block = ..., args = {...}}, got a %s",
          where, luaL_typename(ld->L, -1));
      lua_pop(ld->L, 1);
      continue;
    }
    static const char *const fields[] = {"kernel", "grid", "block", "shmem", "args", NULL};
    check_fields(ld, fields, 0, where);
    l.kernel = req_string(ld, "kernel", where);
    read_dims(ld, "grid", l.grid, NULL, where);
    read_dims(ld, "block", l.block, NULL, where);
    l.shmem = opt_string(ld, "shmem", where);
    if (!l.shmem) l.shmem = "0";
    read_args(ld, &l, where);
    kr_vec_push(ld->a, &ld->s->launches, l);
    lua_pop(ld->L, 1);
  }
  lua_pop(ld->L, 1);
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

/* Evaluates `e` at every test case and at the benchmark sizes; `positive` requires > 0. */
static void check_expr(Ld *ld, const char *e, const char *where, bool positive) {
  if (!e) return;
  const KrSpec *s = ld->s;
  int64_t *vals = kr_arena_alloc(ld->a, (s->sizes.len + 1) * sizeof *vals);
  size_t n = kr_spec_ncases(s);
  for (size_t c = 0; c <= n; c++) {
    kr_spec_case(s, c == n ? SIZE_MAX : c, vals);
    SymCtx ctx = {s, vals};
    int64_t v;
    const char *why;
    if (kr_expr_eval(e, lookup_sym, &ctx, &v, ld->a, &why) != KR_OK) {
      bad(ld, "%s: '%s': %s (symbols: %s)", where, e, why, symbol_names(s, ld->a));
      return;
    }
    if (positive && v <= 0) {
      bad(ld, "%s: '%s' is %lld at %s; it must be positive", where, e, (long long)v,
          c == n ? "the benchmark sizes" : kr_arena_printf(ld->a, "test case %zu", c + 1));
      return;
    }
  }
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

static void check_launch(Ld *ld, const KrLaunchSpec *l, size_t i, const KrModel *m) {
  const char *where = kr_arena_printf(ld->a, "launches[%zu] '%s'", i + 1, l->kernel);
  const char *lt = strchr(l->kernel, '<');
  char *base = kr_arena_strndup(ld->a, l->kernel, lt ? (size_t)(lt - l->kernel) : strlen(l->kernel));
  while (*base && base[strlen(base) - 1] == ' ') base[strlen(base) - 1] = 0;
  const KrKernel *k = kr_model_find(m, base);
  if (!k) {
    bad(ld, "%s: no kernel '%s' in %s (kernels there: %s)", where, base, ld->s->source,
        kr_model_kernel_names(m, ld->a));
    return;
  }
  if (l->args.len != k->params.len)
    bad(ld, "%s: %zu arguments given, but kernel '%s' takes %zu (%s:%u)", where, l->args.len,
        k->name, k->params.len, ld->s->source, k->line);
  for (size_t j = 0; j < l->args.len && j < k->params.len; j++) {
    const KrArgSpec *a = &l->args.data[j];
    const KrParam *p = &k->params.data[j];
    bool ptr = p->pointer_depth > 0;
    if (ptr != (a->kind == KR_ARG_BUFFER))
      bad(ld, "%s: argument %zu '%s' %s, but parameter '%s' is '%s'", where, j + 1, a->text,
          a->kind == KR_ARG_BUFFER ? "is a buffer" : "is not a buffer name", p->name, p->type);
    else if (a->kind == KR_ARG_BUFFER) check_buffer_type(ld, where, find_buffer(ld->s, a->text), p, k);
    else if (a->kind == KR_ARG_EXPR) check_expr(ld, a->text, kr_arena_printf(ld->a, "%s: argument %zu", where, j + 1), false);
  }
  for (int d = 0; d < 3; d++) {
    check_expr(ld, l->grid[d], kr_arena_printf(ld->a, "%s: grid", where), true);
    check_expr(ld, l->block[d], kr_arena_printf(ld->a, "%s: block", where), true);
  }
  check_expr(ld, l->shmem, kr_arena_printf(ld->a, "%s: shmem", where), false);
}

static void check_spec(Ld *ld) {
  KrSpec *s = ld->s;
  for (size_t i = 0; i < s->buffers.len; i++) {
    const KrBufferSpec *b = &s->buffers.data[i];
    const char *where = kr_arena_printf(ld->a, "buffers[%zu] '%s': count", i + 1, b->name);
    check_expr(ld, b->count, where, true);
    check_expr(ld, b->fill.nnz, where, true);
    check_expr(ld, b->fill.cols, where, true);
    if (b->fill.rowptr && !find_buffer(s, b->fill.rowptr))
      bad(ld, "buffers[%zu] '%s': fill rowptr '%s' is not a buffer", i + 1, b->name, b->fill.rowptr);
  }
  check_expr(ld, s->flops, "flops", false);
  check_expr(ld, s->bytes, "bytes", false);
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
  } else {
    KrModel *m = kr_model_build(t, pa);
    for (size_t i = 0; i < s->launches.len; i++) check_launch(ld, &s->launches.data[i], i, m);
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
  static const char *const fields[] = {"name", "source", "sizes", "buffers", "launches",
                                       "tolerance", "flops", "bytes", "seeds", "include", "defines", NULL};
  check_fields(ld, fields, 0, "problem");
  s->name = opt_string(ld, "name", "problem");
  const char *src = req_string(ld, "source", "problem");
  s->source = src ? resolve(ld->path, src, ld->a) : NULL;
  read_build(ld);
  read_sizes(ld);
  read_buffers(ld);
  read_launches(ld);
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
  Ld ld = {.L = kr_lua_state(lua), .a = arena, .d = diags, .path = path, .text = text, .len = len};
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
