/* recipes/sandbox.h: the Lua 5.4 host that runs recipes. Recipes may be written by an LLM, so
 * they run with only a safe subset of the standard library (base without load/loadfile/dofile/
 * collectgarbage/raw access/metatables/warn, string without dump, table, math, utf8; print does
 * nothing unless the caller replaces it, as kr_recipe_apply does with KrRecipeOptions.print, and xpcall runs its handler after unwinding) and under three limits: VM
 * instructions, bytes held by the Lua allocator, and wall-clock seconds.
 *
 * Ownership: kr_lua_new returns a KrLua that owns its lua_State; kr_lua_free closes both. The
 * caller may register its own modules and globals through kr_lua_state, but should call Lua
 * code only through kr_lua_run and kr_lua_pcall, which arm the limits and report errors.
 *
 * Limits are armed by the outermost kr_lua_run/kr_lua_pcall, which gets the whole instruction
 * and time budget; a nested kr_lua_pcall (from a C function the caller registered) shares the
 * outer budget. Once a limit fires it stays fired until that outermost call returns: the
 * sandbox raises again before every following VM instruction, so a script cannot catch the
 * error and carry on, and the call fails even if the script returns normally. The memory cap
 * applies to every allocation of the state, also outside a run.
 *
 * What the limits cannot see: time spent inside a single C function. The sandbox bounds the
 * known ones (string.rep, table.move, pattern matching; see sandbox.c), but Lua patterns can
 * still backtrack for a long time within those bounds. */
#ifndef KR_SANDBOX_H
#define KR_SANDBOX_H

#include <lua.h>

#include "base/kr.h"

typedef struct KrLuaLimits {
  uint64_t max_instructions; /* VM instructions; default 50,000,000; 0: no limit */
  size_t max_memory;         /* bytes the Lua allocator may hold; default 64 MiB; 0: no limit */
  double max_seconds;        /* wall clock; default 10 s; 0 or less: no limit */
} KrLuaLimits;

typedef enum KrLuaLimit {
  KR_LUA_LIMIT_NONE,
  KR_LUA_LIMIT_INSTRUCTIONS,
  KR_LUA_LIMIT_MEMORY,
  KR_LUA_LIMIT_TIME,
} KrLuaLimit;

typedef struct KrLua KrLua;

void kr_lua_limits_default(KrLuaLimits *out);

/* NULL when memory runs out, including a max_memory too small to open the libraries.
 * `limits` may be NULL for the defaults; it is copied. */
KrLua *kr_lua_new(const KrLuaLimits *limits);
void kr_lua_free(KrLua *self);

/* Borrowed; valid until kr_lua_free. */
lua_State *kr_lua_state(KrLua *self);

/* Loads `text` as a text-only chunk named `chunkname` (the recipe's path: messages then read
 * "chunkname:LINE: message") and runs it with the limits armed. On success leaves `nresults`
 * results (or all of them for LUA_MULTRET) on the stack and returns KR_OK. On failure adds one
 * error to `diags`, located at the file and line where the script was, leaves the stack as it
 * was, and returns KR_ERR. Binary (precompiled) chunks are refused. A UTF-8 byte order mark and
 * a first line starting with '#' (`#!/usr/bin/env krewrite`) are skipped, as Lua's own file
 * loader does, with line numbers unchanged. */
KrStatus kr_lua_run(KrLua *self, const char *chunkname, const char *text, size_t len, int nresults,
                    KrDiags *diags);

/* Calls the function below the top `nargs` values, under the same limits and reporting. The
 * function and its arguments are consumed; on success `nresults` results replace them. */
KrStatus kr_lua_pcall(KrLua *self, int nargs, int nresults, KrDiags *diags);

/* Which limit stopped the last (outermost) run, or KR_LUA_LIMIT_NONE. */
KrLuaLimit kr_lua_limit_hit(const KrLua *self);

#endif
