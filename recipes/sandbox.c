/* recipes/sandbox.c: the sandboxed Lua host that runs recipes (the contract is in sandbox.h).
 *
 * A script can fail to end, or take the machine down, in three ways, and each has one guard:
 *  - running forever: a count hook counts VM instructions and reads the clock every
 *    HOOK_PERIOD instructions. Once a limit fires the hook re-arms itself to run before every
 *    instruction and raises each time, so catching the error with pcall only buys one
 *    instruction;
 *  - allocating without end: a custom lua_Alloc keeps the bytes Lua holds under max_memory;
 *  - one C call that loops for long without executing a VM instruction, where the hook never
 *    runs: string.rep, table.move and the pattern functions are wrapped with bounds.
 * Errors are located by a C message handler, which runs before the stack unwinds. */
#include "recipes/sandbox.h"

#include <inttypes.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  HOOK_PERIOD = 100,       /* instructions between two hook calls; the hook also notes the line */
  MAX_SUBJECT = 64 * 1024, /* longest subject of a pattern function, bytes */
  MAX_PATTERN = 256,       /* longest pattern, bytes */
  MAX_MOVE = 1 << 24,      /* most elements one table.move may copy */
  MAX_LEVELS = 32,         /* stack levels searched for an error's position */
  MAX_MESSAGE = 2000,      /* longest error message kept in a diagnostic */
};

/* Where the script was: a line and the file its chunk came from (empty: the current recipe). */
typedef struct Where {
  uint32_t line;
  KrBuf path;
} Where;

/* An allocation the cap refused; see settle(). */
typedef struct Request {
  bool on;
  void *ptr;
  size_t osize, nsize;
} Request;

struct KrLua {
  lua_State *L;
  KrLuaLimits limits;
  size_t used;             /* bytes the Lua allocator holds */
  Request refused;         /* a refusal not yet known to be final */
  int depth;               /* nested runs; the outermost arms and disarms the limits */
  int period;              /* the count hook's period for this run */
  uint64_t steps;          /* instructions counted in this run */
  struct timespec start;   /* when the outermost run began */
  KrLuaLimit limit;        /* the first limit that fired in this run */
  bool located;            /* limit_at comes from the stack, not from last_line */
  uint32_t last_line;      /* the line the hook last saw, for errors that carry none */
  Where limit_at, error_at;
  KrBuf chunk;             /* the outermost run's chunk name: the path when a frame gives none */
};

/* ---- Limits and their messages ----------------------------------------------------------------- */

void kr_lua_limits_default(KrLuaLimits *out) {
  out->max_instructions = 50000000;
  out->max_memory = (size_t)64 << 20;
  out->max_seconds = 10.0;
}

static KrLua *owner(lua_State *L) { return *(KrLua **)lua_getextraspace(L); }

static void limit_message(const KrLua *self, char *out, size_t n) {
  const KrLuaLimits *lim = &self->limits;
  switch (self->limit) {
  case KR_LUA_LIMIT_INSTRUCTIONS:
    snprintf(out, n, "instruction limit of %" PRIu64 " exceeded (raise it with --max-instructions)",
             lim->max_instructions);
    break;
  case KR_LUA_LIMIT_MEMORY:
    if (lim->max_memory % ((size_t)1 << 20) == 0)
      snprintf(out, n, "memory limit of %zu MiB exceeded (raise it with --max-memory)",
               lim->max_memory >> 20);
    else
      snprintf(out, n, "memory limit of %zu bytes exceeded (raise it with --max-memory)",
               lim->max_memory);
    break;
  case KR_LUA_LIMIT_TIME:
    snprintf(out, n, "wall-clock limit of %g s exceeded (raise it with --max-seconds)",
             lim->max_seconds);
    break;
  default:
    snprintf(out, n, "no limit fired");
  }
}

static void where_clear(Where *w) {
  w->line = 0;
  w->path.len = 0;
}

static void where_set(Where *w, const lua_Debug *ar, uint32_t line) {
  /* Our chunks are named "@path"; the source is then the path in full, where short_src may be
   * shortened with "...". Chunks named otherwise (by the caller) only have short_src. */
  const char *src = ar->source;
  where_clear(w);
  w->line = line;
  kr_buf_puts(&w->path, (src[0] == '@' || src[0] == '=') ? src + 1 : ar->short_src);
}

/* The innermost frame, from `level` outwards, that runs Lua code with line information. */
static bool script_frame(lua_State *L, int level, lua_Debug *ar) {
  for (int i = level; i < level + MAX_LEVELS && lua_getstack(L, i, ar); i++)
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0) return true;
  return false;
}

/* Places a limit that fired without a stack at hand at the script's current position. */
static void locate_limit(KrLua *self, lua_State *L) {
  lua_Debug ar;
  if (self->limit == KR_LUA_LIMIT_NONE || self->located || !script_frame(L, 0, &ar)) return;
  where_set(&self->limit_at, &ar, (uint32_t)ar.currentline);
  self->located = true;
}

/* Records that a limit fired. `L` is NULL where the stack must not be read (see l_alloc): the
 * line the hook saw last stands in until the message handler or the hook can place it. */
static void fire(KrLua *self, lua_State *L, KrLuaLimit which) {
  if (self->limit != KR_LUA_LIMIT_NONE) return; /* the first limit is the one reported */
  self->limit = which;
  self->located = false;
  where_clear(&self->limit_at);
  self->limit_at.line = self->last_line;
  if (L) locate_limit(self, L);
}

static int raise_limit(lua_State *L, const KrLua *self) {
  char msg[160];
  limit_message(self, msg, sizeof msg);
  lua_pushstring(L, msg);
  return lua_error(L);
}

/* ---- Memory -------------------------------------------------------------------------------------
 * When an allocation fails, Lua runs an emergency collection and asks again with the same
 * arguments; only if that fails too does the script see an error. So a refusal is only final
 * once the next request is not that retry, or the retry is refused as well. Between the two
 * calls the collector only frees (it neither finalizes nor resizes in an emergency). */

static void settle(KrLua *self, lua_State *L, void *ptr, size_t osize, size_t nsize,
                   bool refused) {
  if (self->depth == 0) return; /* outside a run a refusal is just an error for the caller */
  if (self->refused.on) {
    const Request *r = &self->refused;
    bool retry = r->ptr == ptr && r->osize == osize && r->nsize == nsize;
    self->refused.on = false;
    if (!retry || refused) fire(self, L, KR_LUA_LIMIT_MEMORY);
    if (retry) return;
  }
  if (refused) self->refused = (Request){.on = true, .ptr = ptr, .osize = osize, .nsize = nsize};
}

/* A refusal still pending when Lua code runs again (hook, message handler, end of run) is final. */
static void settle_pending(KrLua *self, lua_State *L) {
  if (!self->refused.on) return;
  self->refused.on = false;
  fire(self, L, KR_LUA_LIMIT_MEMORY);
}

static void *l_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  KrLua *self = ud;
  size_t old = ptr ? osize : 0; /* with ptr NULL, osize names the kind of object, not a size */
  if (nsize == 0) {
    free(ptr);
    self->used -= old;
    return NULL;
  }
  size_t cap = self->limits.max_memory;
  bool over = cap && nsize > old && nsize - old > cap - self->used;
  /* Reading the stack from inside the allocator is only safe while Lua is not in the middle of
   * moving it (Lua 5.4.6 turns the stack's pointers into offsets while it reallocates it). A new
   * object (a string, table, closure: ptr NULL and osize its type tag) is never the stack, and Lua
   * makes them with the stack in order, so then the position can be read at once. */
  bool object = !ptr && osize >= LUA_TSTRING && osize <= LUA_TTHREAD;
  settle(self, object ? self->L : NULL, ptr, osize, nsize, over);
  if (over) return NULL;
  void *p = realloc(ptr, nsize);
  if (!p) return nsize <= old ? ptr : NULL; /* Lua assumes shrinking never fails */
  self->used = self->used - old + nsize;
  return p;
}

/* ---- Instructions and time ------------------------------------------------------------------- */

static double elapsed(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void check_limits(KrLua *self, lua_State *L) {
  const KrLuaLimits *lim = &self->limits;
  settle_pending(self, L);
  if (lim->max_instructions && self->steps >= lim->max_instructions)
    fire(self, L, KR_LUA_LIMIT_INSTRUCTIONS);
  else if (lim->max_seconds > 0 && elapsed(&self->start) > lim->max_seconds)
    fire(self, L, KR_LUA_LIMIT_TIME);
}

static void l_hook(lua_State *L, lua_Debug *ar) {
  KrLua *self = owner(L);
  if (self->limit == KR_LUA_LIMIT_NONE) {
    if (lua_getinfo(L, "l", ar) && ar->currentline > 0) self->last_line = (uint32_t)ar->currentline;
    self->steps += (uint64_t)self->period;
    check_limits(self, L);
    if (self->limit == KR_LUA_LIMIT_NONE) return;
  }
  locate_limit(self, L);
  /* From now on the hook runs before every instruction, so the error comes straight back after
   * any pcall that caught it, until the script has nowhere left to run. */
  lua_sethook(L, l_hook, LUA_MASKCOUNT, 1);
  raise_limit(L, self);
}

static void arm(KrLua *self) {
  if (self->depth++ > 0) return;
  uint64_t max = self->limits.max_instructions;
  self->limit = KR_LUA_LIMIT_NONE;
  self->refused.on = false;
  self->steps = 0;
  self->last_line = 0;
  where_clear(&self->limit_at);
  self->period = max && max < HOOK_PERIOD ? (int)max : HOOK_PERIOD;
  clock_gettime(CLOCK_MONOTONIC, &self->start);
  lua_sethook(self->L, l_hook, LUA_MASKCOUNT, self->period);
}

static void disarm(KrLua *self) {
  if (--self->depth > 0) return;
  lua_sethook(self->L, NULL, 0, 0);
}

/* ---- Errors ------------------------------------------------------------------------------------ */

/* Length of the "src:LINE: " prefix Lua put in front of `msg`, or 0 if there is none. */
static size_t where_prefix(const char *msg, const char *src, uint32_t *line) {
  size_t n = strlen(src);
  if (strncmp(msg, src, n) != 0 || msg[n] != ':') return 0;
  const char *digits = msg + n + 1, *p = digits;
  uint32_t v = 0;
  while (*p >= '0' && *p <= '9' && p - digits < 9) v = v * 10 + (uint32_t)(*p++ - '0');
  if (p == digits || p[0] != ':' || p[1] != ' ') return 0;
  *line = v;
  return (size_t)(p + 2 - msg);
}

/* Pushes the error value at index 1 as text: a non-string error (error({}), error()) gets a
 * sentence saying what it was, so the report never depends on how the value prints. */
static const char *error_text(lua_State *L) {
  int t = lua_type(L, 1);
  if (t == LUA_TSTRING || t == LUA_TNUMBER) {
    lua_pushvalue(L, 1);
    return lua_tostring(L, -1);
  }
  return lua_pushfstring(L, "error object is a %s value, not a message string",
                         luaL_typename(L, 1));
}

/* The message handler: finds the frame whose position Lua put in front of the message (error
 * levels make that a caller sometimes), strips it, and records it for the diagnostic. Without
 * a position, the innermost Lua frame stands in. */
static int l_msgh(lua_State *L) {
  KrLua *self = owner(L);
  const char *msg = error_text(L);
  size_t skip = 0;
  lua_Debug ar;
  where_clear(&self->error_at);
  for (int level = 1; level <= MAX_LEVELS && lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
    uint32_t line = 0;
    skip = where_prefix(msg, ar.short_src, &line);
    if (skip) {
      where_set(&self->error_at, &ar, line);
      break;
    }
    if (!self->error_at.line) where_set(&self->error_at, &ar, (uint32_t)ar.currentline);
  }
  settle_pending(self, L);
  locate_limit(self, L);
  if (skip) lua_pushstring(L, msg + skip); /* else the text is on top already: no copy to make */
  return 1;
}

static void add_error(KrLua *self, KrDiags *diags, const char *path, uint32_t line,
                      const char *msg) {
  /* A script can raise a string of megabytes; the diagnostic keeps the start of it. */
  size_t n = strlen(msg);
  int keep = n > MAX_MESSAGE ? MAX_MESSAGE : (int)n;
  if (!path && self->chunk.len) path = self->chunk.data;
  kr_diag_pos(diags, KR_DIAG_ERROR, path, line ? line : self->last_line, 0, "%.*s%s", keep, msg,
              (size_t)keep < n ? " [...]" : "");
}

/* Reports the error value on top of the stack, or the limit that fired, whatever it says. */
static void report(KrLua *self, KrDiags *diags) {
  const Where *w = self->limit != KR_LUA_LIMIT_NONE ? &self->limit_at : &self->error_at;
  const char *path = w->path.len ? w->path.data : NULL;
  char buf[160];
  const char *msg = lua_tostring(self->L, -1);
  if (self->limit != KR_LUA_LIMIT_NONE) {
    limit_message(self, buf, sizeof buf);
    msg = buf;
  }
  add_error(self, diags, path, w->line, msg ? msg : "error object is not a message string");
}

/* The chunk name as Lua prints it in messages (LUA_IDSIZE bounds it, shortening long paths).
 * Loading an empty chunk under the same name and asking for its short_src gets it exactly. */
static void short_source(lua_State *L, const char *source, char out[LUA_IDSIZE]) {
  lua_Debug ar;
  out[0] = 0;
  if (luaL_loadbufferx(L, "", 0, source, "t") != LUA_OK) {
    lua_pop(L, 1);
    return;
  }
  lua_getinfo(L, ">S", &ar);
  memcpy(out, ar.short_src, LUA_IDSIZE);
}

/* A syntax error: Lua's message is "src:LINE: text"; the diagnostic carries file and line. */
static void report_load(KrLua *self, const char *chunkname, const char *source, KrDiags *diags) {
  if (self->limit != KR_LUA_LIMIT_NONE) {
    report(self, diags);
    return;
  }
  char src[LUA_IDSIZE];
  const char *msg = lua_tostring(self->L, -1);
  uint32_t line = 0;
  size_t skip = 0;
  short_source(self->L, source, src);
  if (msg && src[0]) skip = where_prefix(msg, src, &line);
  add_error(self, diags, chunkname, line, msg ? msg + skip : "the chunk could not be loaded");
}

/* ---- Protected calls --------------------------------------------------------------------------- */

static KrStatus call(KrLua *self, int nargs, int nresults, KrDiags *diags) {
  lua_State *L = self->L;
  int base = lua_gettop(L) - nargs; /* the function */
  if (!lua_checkstack(L, 1)) {
    lua_settop(L, base - 1);
    add_error(self, diags, NULL, 0, "not enough memory to call the function");
    return KR_ERR;
  }
  lua_pushcfunction(L, l_msgh);
  lua_insert(L, base);
  where_clear(&self->error_at);
  int st = lua_pcall(L, nargs, nresults, base);
  lua_remove(L, base);
  settle_pending(self, NULL);
  if (st == LUA_OK && self->limit == KR_LUA_LIMIT_NONE) return KR_OK;
  if (st == LUA_OK) {
    /* The script caught the limit's error and returned; the run still failed. */
    lua_settop(L, base - 1);
    lua_pushnil(L);
  }
  report(self, diags);
  lua_pop(L, 1);
  return KR_ERR;
}

/* Skips what Lua's file loader skips and a chunk loaded from memory would choke on: a UTF-8 byte
 * order mark (editors on Windows write one) and a first line starting with '#' (a `#!` line that
 * makes a recipe executable). The newline ending that line is kept, so line numbers in messages
 * still count from the file's first line. */
static const char *skip_prelude(const char *text, size_t *len) {
  if (*len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3, *len -= 3;
  if (*len > 0 && text[0] == '#') {
    const char *nl = memchr(text, '\n', *len);
    size_t skip = nl ? (size_t)(nl - text) : *len;
    text += skip, *len -= skip;
  }
  return text;
}

KrStatus kr_lua_run(KrLua *self, const char *chunkname, const char *text, size_t len, int nresults,
                    KrDiags *diags) {
  if (!chunkname) chunkname = "recipe";
  text = skip_prelude(text, &len);
  if (len > 0 && text[0] == LUA_SIGNATURE[0]) {
    kr_diag_pos(diags, KR_DIAG_ERROR, chunkname, 1, 0,
                "binary (precompiled) Lua chunks are not accepted: a recipe must be Lua source "
                "text");
    return KR_ERR;
  }
  if (self->depth == 0) {
    self->chunk.len = 0;
    kr_buf_puts(&self->chunk, chunkname);
  }
  KrBuf source = {0};
  kr_buf_putc(&source, '@'); /* "@path": Lua prints the name as a file name, without quotes */
  kr_buf_puts(&source, chunkname);
  KrStatus st = KR_ERR;
  arm(self);
  if (luaL_loadbufferx(self->L, text, len, source.data, "t") == LUA_OK) {
    st = call(self, 0, nresults, diags);
  } else {
    settle_pending(self, NULL);
    report_load(self, chunkname, source.data, diags);
    lua_pop(self->L, 1);
  }
  disarm(self);
  kr_buf_free(&source);
  return st;
}

KrStatus kr_lua_pcall(KrLua *self, int nargs, int nresults, KrDiags *diags) {
  arm(self);
  KrStatus st = call(self, nargs, nresults, diags);
  disarm(self);
  return st;
}

KrLuaLimit kr_lua_limit_hit(const KrLua *self) { return self->limit; }

/* ---- Bounded library functions ------------------------------------------------------------------ */

/* Calls the wrapped standard function, kept as upvalue 1, on this same frame: argument errors
 * then name the function as the script called it. */
static int call_original(lua_State *L) { return lua_tocfunction(L, lua_upvalueindex(1))(L); }

/* Lua's matcher backtracks inside one C call, where neither the instruction count nor the clock
 * is looked at, so a single string.find could outlast every limit. Capping the subject and the
 * pattern turns the likely accidents (matching over a huge generated string, a pattern built in
 * a loop) into a clear error instead of a hang. It is not a full bound: backtracking costs up to
 * the subject length to the power of the number of quantifiers ('.-b' over 64 KiB of 'a' takes
 * about 14 s); only a matcher that counts its steps would close that. */
static int l_pattern(lua_State *L) {
  size_t ls, lp;
  luaL_checklstring(L, 1, &ls);
  luaL_checklstring(L, 2, &lp);
  const char *name = lua_tostring(L, lua_upvalueindex(2));
  if (ls > MAX_SUBJECT)
    return luaL_error(L, "%s: subject of %I bytes is over the sandbox limit of %d bytes for "
                      "pattern matching", name, (lua_Integer)ls, MAX_SUBJECT);
  if (lp > MAX_PATTERN)
    return luaL_error(L, "%s: pattern of %I bytes is over the sandbox limit of %d bytes", name,
                      (lua_Integer)lp, MAX_PATTERN);
  return call_original(L);
}

/* string.rep builds its result in one C loop. A result over the memory cap is refused before the
 * loop as the allocator would refuse it; an empty piece repeated math.maxinteger times would
 * allocate nothing and loop for ever, so it is answered here. */
static int l_rep(lua_State *L) {
  KrLua *self = owner(L);
  size_t l, lsep;
  luaL_checklstring(L, 1, &l);
  lua_Integer n = luaL_checkinteger(L, 2);
  luaL_optlstring(L, 3, "", &lsep);
  if (n <= 0 || l + lsep == 0) {
    lua_pushliteral(L, "");
    return 1;
  }
  size_t cap = self->limits.max_memory;
  if (cap && l + lsep > cap / (lua_Unsigned)n) {
    fire(self, L, KR_LUA_LIMIT_MEMORY);
    return raise_limit(L, self);
  }
  return call_original(L);
}

/* table.move copies element by element in C, and copying absent elements allocates nothing, so
 * table.move({}, 1, math.maxinteger, 1) would run for ever without memory or hook noticing. */
static int l_move(lua_State *L) {
  lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
  if (e >= f && (lua_Unsigned)e - (lua_Unsigned)f >= MAX_MOVE)
    return luaL_error(L, "table.move: moving more than %d elements is over the sandbox limit",
                      MAX_MOVE);
  return call_original(L);
}

/* xpcall runs its handler before the stack unwinds. For an error raised by the hook that is still
 * inside the hook, where Lua turns hooks off, so a handler that loops would never be stopped.
 * This xpcall runs the handler after unwinding instead; without the debug library a handler
 * cannot look at the stack, so scripts see no difference. */
static int l_xpcall(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  luaL_checkstack(L, n, "too many arguments");
  lua_pushboolean(L, 1);
  lua_pushvalue(L, 1);
  for (int i = 3; i <= n; i++) lua_pushvalue(L, i);
  int st = lua_pcall(L, n - 2, LUA_MULTRET, 0);
  if (st == LUA_OK) return lua_gettop(L) - n;
  lua_pushboolean(L, 0);
  lua_replace(L, n + 1);
  if (st != LUA_ERRRUN) return 2; /* as in Lua: no handler for memory errors */
  lua_pushvalue(L, 2);
  lua_rotate(L, -2, 1);
  lua_pcall(L, 1, 1, 0); /* an error in the handler becomes the result */
  return 2;
}

/* Scripts may keep their print calls; the output goes nowhere, as library code never prints. The
 * caller can replace print through kr_lua_state. */
static int l_print(lua_State *L) {
  (void)L;
  return 0;
}

/* ---- The state --------------------------------------------------------------------------------- */

/* Reach outside the state (files, code loading), or around the sandbox (metatables, the
 * collector, raw access, warn's output). */
static const char *const removed_globals[] = {
  "load",   "loadfile", "dofile",       "require",      "collectgarbage", "rawget", "rawset",
  "rawequal", "rawlen", "getmetatable", "setmetatable", "warn",           NULL,
};

static const char *const pattern_functions[] = {"find", "match", "gmatch", "gsub", NULL};

static void open_libs(lua_State *L) {
  static const luaL_Reg libs[] = {
    {LUA_GNAME, luaopen_base},         {LUA_STRLIBNAME, luaopen_string},
    {LUA_TABLIBNAME, luaopen_table},   {LUA_MATHLIBNAME, luaopen_math},
    {LUA_UTF8LIBNAME, luaopen_utf8},   {NULL, NULL},
  };
  for (const luaL_Reg *lib = libs; lib->func; lib++) {
    luaL_requiref(L, lib->name, lib->func, 1);
    lua_pop(L, 1);
  }
}

/* Replaces field `name` of the table at index `t` with `f`, which gets the original as upvalue 1
 * and, when `label` is given, the label as upvalue 2. */
static void wrap(lua_State *L, int t, const char *name, lua_CFunction f, const char *label) {
  lua_getfield(L, t, name);
  if (label) lua_pushstring(L, label);
  lua_pushcclosure(L, f, label ? 2 : 1);
  lua_setfield(L, t, name);
}

static int l_setup(lua_State *L) {
  open_libs(L);
  for (const char *const *g = removed_globals; *g; g++) {
    lua_pushnil(L);
    lua_setglobal(L, *g);
  }
  lua_register(L, "print", l_print);
  lua_register(L, "xpcall", l_xpcall);
  /* Strings index this same table through their metatable, so ("x").dump is gone as well. */
  int t = lua_gettop(L) + 1;
  lua_getglobal(L, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, t, "dump");
  wrap(L, t, "rep", l_rep, NULL);
  for (const char *const *p = pattern_functions; *p; p++) {
    const char *label = lua_pushfstring(L, "string.%s", *p);
    wrap(L, t, *p, l_pattern, label);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_getglobal(L, LUA_TABLIBNAME);
  wrap(L, t, "move", l_move, NULL);
  lua_pop(L, 1);
  return 0;
}

KrLua *kr_lua_new(const KrLuaLimits *limits) {
  KrLua *self = calloc(1, sizeof *self);
  if (!self) return NULL;
  if (limits)
    self->limits = *limits;
  else
    kr_lua_limits_default(&self->limits);
  self->L = lua_newstate(l_alloc, self);
  if (!self->L) goto fail;
  *(KrLua **)lua_getextraspace(self->L) = self;
  /* Opening the libraries allocates, and an error outside protected mode would abort. */
  lua_pushcfunction(self->L, l_setup);
  if (lua_pcall(self->L, 0, 0, 0) != LUA_OK) goto fail;
  return self;
fail:
  kr_lua_free(self);
  return NULL;
}

void kr_lua_free(KrLua *self) {
  if (!self) return;
  if (self->L) lua_close(self->L);
  kr_buf_free(&self->limit_at.path);
  kr_buf_free(&self->error_at.path);
  kr_buf_free(&self->chunk);
  free(self);
}

lua_State *kr_lua_state(KrLua *self) { return self->L; }
