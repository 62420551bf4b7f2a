/* tests/unit/test_sandbox.c: the recipe sandbox (recipes/sandbox.c). Each hostile behaviour must
 * end with one located error whose text says what happened; good scripts must still run. The
 * last test runs every file of tests/recipes/hostile and checks its "-- expect:" line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <string.h>

#include "recipes/sandbox.h"

/* ---- Helpers --------------------------------------------------------------------------------- */

/* Defaults, with a smaller instruction budget and memory cap so the tests run fast. */
static KrLuaLimits quick_limits(void) {
  KrLuaLimits lim;
  kr_lua_limits_default(&lim);
  lim.max_instructions = 2000000;
  lim.max_memory = (size_t)8 << 20;
  return lim;
}

/* The default limits, but with a generous clock, so that a slow build (valgrind) still stops on
 * the instruction count rather than the clock. */
static KrLuaLimits default_limits(void) {
  KrLuaLimits lim;
  kr_lua_limits_default(&lim);
  lim.max_seconds = 300;
  return lim;
}

static void assert_contains(const char *haystack, const char *needle) {
  if (!haystack || !strstr(haystack, needle))
    fail_msg("expected \"%s\" in \"%s\"", needle, haystack ? haystack : "(null)");
}

/* Runs `text` as recipe.lua, which must fail with exactly one error containing `needle`, at
 * `line` unless it is 0, leaving the stack as it was. Returns the limit that stopped it. */
static KrLuaLimit expect_error(const KrLuaLimits *lim, const char *text, uint32_t line,
                               const char *needle) {
  KrLua *lua = kr_lua_new(lim);
  assert_non_null(lua);
  KrDiags *diags = kr_diags_new();
  int top = lua_gettop(kr_lua_state(lua));
  assert_int_equal(kr_lua_run(lua, "recipe.lua", text, strlen(text), 0, diags), KR_ERR);
  assert_int_equal(lua_gettop(kr_lua_state(lua)), top);
  assert_int_equal(diags->items.len, 1);
  const KrDiag *d = &diags->items.data[0];
  assert_int_equal(d->severity, KR_DIAG_ERROR);
  assert_string_equal(d->path, "recipe.lua");
  assert_contains(d->message, needle);
  /* The file and line travel in the diagnostic; the message must not repeat them. */
  assert_null(strstr(d->message, "recipe.lua:"));
  if (line) assert_int_equal(d->line, line);
  KrLuaLimit hit = kr_lua_limit_hit(lua);
  kr_diags_free(diags);
  kr_lua_free(lua);
  return hit;
}

/* Runs `text`, which must succeed with one result; returns it as an integer. */
static lua_Integer expect_integer(const char *text) {
  KrLuaLimits lim = quick_limits();
  KrLua *lua = kr_lua_new(&lim);
  assert_non_null(lua);
  KrDiags *diags = kr_diags_new();
  assert_int_equal(kr_lua_run(lua, "recipe.lua", text, strlen(text), 1, diags), KR_OK);
  assert_int_equal(diags->items.len, 0);
  lua_State *L = kr_lua_state(lua);
  assert_int_equal(lua_gettop(L), 1);
  lua_Integer v = lua_tointeger(L, -1);
  kr_diags_free(diags);
  kr_lua_free(lua);
  return v;
}

static void expect_nil_global(const char *text, const char *name) {
  char needle[64];
  snprintf(needle, sizeof needle, "global '%s'", name);
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, text, 1, needle);
}

/* ---- Instructions and time -------------------------------------------------------------------- */

static void infinite_loop_stops_at_the_default_instruction_limit(void **state) {
  (void)state;
  KrLuaLimits lim = default_limits();
  KrLuaLimit hit = expect_error(&lim, "local n = 0\nwhile true do\n  n = n + 1\nend\n", 0,
                                "instruction limit of 50000000 exceeded (raise it with "
                                "--max-instructions)");
  assert_int_equal(hit, KR_LUA_LIMIT_INSTRUCTIONS);
}

static void instruction_limit_names_the_line_of_the_loop(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local n = 0\n\nwhile true do n = n + 1 end\n", 3, "instruction limit");
}

static void instruction_limit_survives_pcall(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  const char *text = "while true do\n"
                     "  pcall(function() while true do end end)\n"
                     "end\n";
  assert_int_equal(expect_error(&lim, text, 0, "instruction limit of 2000000 exceeded"),
                   KR_LUA_LIMIT_INSTRUCTIONS);
}

static void instruction_limit_survives_an_xpcall_handler_that_loops(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  const char *text = "xpcall(function() while true do end end,\n"
                     "       function() while true do end end)\n";
  expect_error(&lim, text, 0, "instruction limit of 2000000 exceeded");
}

static void limit_is_reported_when_the_script_returns_after_catching_it(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  const char *text = "local ok = pcall(function()\n  while true do end\nend)\nreturn ok\n";
  expect_error(&lim, text, 2, "instruction limit of 2000000 exceeded");
}

static void wall_clock_limit_stops_a_loop(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  lim.max_instructions = 0;
  lim.max_seconds = 0.05;
  assert_int_equal(expect_error(&lim, "while true do end\n", 1,
                                "wall-clock limit of 0.05 s exceeded (raise it with "
                                "--max-seconds)"),
                   KR_LUA_LIMIT_TIME);
}

/* ---- Memory --------------------------------------------------------------------------------- */

static void table_growth_stops_at_the_memory_limit(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  lim.max_instructions = 0;
  const char *text = "local t = {}\nfor i = 1, math.huge do\n  t[i] = {i}\nend\n";
  assert_int_equal(expect_error(&lim, text, 0,
                                "memory limit of 8 MiB exceeded (raise it with --max-memory)"),
                   KR_LUA_LIMIT_MEMORY);
}

static void huge_string_rep_stops_at_the_memory_limit(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local n = 1 << 30\nreturn ('x'):rep(n)\n", 2, "memory limit of 8 MiB");
}

static void string_rep_under_the_cap_but_over_free_memory_stops_too(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  const char *text = "local a = ('x'):rep(5 << 20)\nlocal b = a:rep(1, 'y')\nreturn a .. b\n";
  expect_error(&lim, text, 0, "memory limit of 8 MiB");
}

static void concatenation_loop_stops_at_the_memory_limit(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local s = 'x'\nwhile true do s = s .. s end\n", 2, "memory limit of 8 MiB");
}

static void memory_limit_survives_pcall(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  lim.max_instructions = 0;
  const char *text = "for i = 1, 100 do\n"
                     "  pcall(function() local t = {} while true do t[#t + 1] = i end end)\n"
                     "end\n"
                     "return 'survived'\n";
  assert_int_equal(expect_error(&lim, text, 0, "memory limit of 8 MiB"), KR_LUA_LIMIT_MEMORY);
}

static void memory_limit_not_a_whole_number_of_mib_is_given_in_bytes(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  lim.max_memory = 3000000;
  expect_error(&lim, "return ('x'):rep(1 << 24)\n", 1, "memory limit of 3000000 bytes");
}

static void garbage_near_the_cap_does_not_fire_the_memory_limit(void **state) {
  (void)state;
  /* Each 3 MiB string is garbage once the next is made. When the cap refuses a concatenation,
   * Lua collects and asks again; that retry succeeds and must not count as hitting the limit. */
  assert_int_equal(expect_integer("local a = ('x'):rep(1 << 20)\n"
                                  "local n = 0\n"
                                  "for i = 1, 200 do\n"
                                  "  local s = a .. a .. a .. i\n"
                                  "  n = n + #s\n"
                                  "end\n"
                                  "return n\n"),
                   200 * (3 << 20) + 9 + 90 * 2 + 101 * 3);
}

static void empty_string_rep_does_not_hang(void **state) {
  (void)state;
  assert_int_equal(expect_integer("return #(''):rep(math.maxinteger, '')"), 0);
}

static void huge_table_move_is_refused(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local t = {}\ntable.move(t, 1, math.maxinteger, 1)\n", 2,
               "table.move: moving more than 16777216 elements is over the sandbox limit");
}

static void tiny_memory_limit_makes_new_fail(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  lim.max_memory = 1024;
  assert_null(kr_lua_new(&lim));
}

/* ---- Removed functions ---------------------------------------------------------------------- */

static void os_is_nil(void **state) {
  (void)state;
  expect_nil_global("os.execute('true')", "os");
}

static void io_is_nil(void **state) {
  (void)state;
  expect_nil_global("return io.open('/etc/passwd')", "io");
}

static void load_is_nil(void **state) {
  (void)state;
  expect_nil_global("return load('return 1')()", "load");
}

static void loadstring_is_nil(void **state) {
  (void)state;
  expect_nil_global("return loadstring('return 1')()", "loadstring");
}

static void dofile_is_nil(void **state) {
  (void)state;
  expect_nil_global("dofile('/etc/passwd')", "dofile");
}

static void require_is_nil(void **state) {
  (void)state;
  expect_nil_global("return require('io')", "require");
}

static void collectgarbage_is_nil(void **state) {
  (void)state;
  expect_nil_global("collectgarbage('stop')", "collectgarbage");
}

static void setmetatable_is_nil(void **state) {
  (void)state;
  expect_nil_global("setmetatable({}, {})", "setmetatable");
}

static void string_dump_is_nil(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "return string.dump(function() end)", 1, "field 'dump'");
}

static void string_dump_is_nil_through_the_string_metatable(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local s = 'x'\nreturn s:dump()", 2, "method 'dump'");
  assert_int_equal(expect_integer("return ('x').dump == nil and 1 or 0"), 1);
}

static void only_the_safe_globals_remain(void **state) {
  (void)state;
  const char *text = "local gone = {'os', 'io', 'package', 'debug', 'coroutine', 'load',\n"
                     "  'loadfile', 'dofile', 'require', 'collectgarbage', 'rawget', 'rawset',\n"
                     "  'rawequal', 'rawlen', 'getmetatable', 'setmetatable', 'warn'}\n"
                     "for _, name in ipairs(gone) do\n"
                     "  if _G[name] ~= nil then error(name .. ' is reachable') end\n"
                     "end\n"
                     "assert(string.dump == nil)\n"
                     "assert(string and table and math and utf8 and pcall and xpcall)\n"
                     "return 1\n";
  assert_int_equal(expect_integer(text), 1);
}

/* ---- Loading ---------------------------------------------------------------------------------- */

static void binary_chunk_is_refused(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "\x1bLuaT\x00\x19\x93\r\n", 1,
               "binary (precompiled) Lua chunks are not accepted");
}

static void syntax_error_names_its_line(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local a = 1\nlocal b = 2\nlocal = 3\n", 3, "<name> expected near '='");
}

static void syntax_error_in_a_long_path_keeps_path_and_line(void **state) {
  (void)state;
  /* Lua shortens chunk names over 60 bytes with "..." in its messages. */
  const char *path = "some/very/long/folder/name/that/goes/on/and/on/and/on/for/a/while/recipe.lua";
  KrLua *lua = kr_lua_new(NULL); /* the default limits */
  assert_non_null(lua);
  KrDiags *diags = kr_diags_new();
  const char *text = "\n\nreturn +\n";
  assert_int_equal(kr_lua_run(lua, path, text, strlen(text), 0, diags), KR_ERR);
  assert_int_equal(diags->items.len, 1);
  assert_string_equal(diags->items.data[0].path, path);
  assert_int_equal(diags->items.data[0].line, 3);
  assert_string_equal(diags->items.data[0].message, "unexpected symbol near '+'");
  kr_diags_free(diags);
  kr_lua_free(lua);
}

/* A byte order mark and a #! line are skipped as Lua's file loader skips them; line numbers still
 * count from the file's first line. */
static void bom_and_shebang_line_are_skipped(void **state) {
  (void)state;
  assert_int_equal(expect_integer("\xEF\xBB\xBF#!/usr/bin/env krewrite apply\nreturn 7\n"), 7);
  assert_int_equal(expect_integer("\xEF\xBB\xBFreturn 8\n"), 8);
  assert_int_equal(expect_integer("#!/usr/bin/env krewrite\nreturn 9"), 9);
}

static void error_after_a_shebang_line_keeps_its_line(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "\xEF\xBB\xBF#!/usr/bin/env krewrite\nlocal a = 1\nerror('third')\n", 3, "third");
  expect_error(&lim, "#!/usr/bin/env krewrite\nlocal = 1\n", 2, "<name> expected near '='");
}

static void a_bom_does_not_hide_a_binary_chunk(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "\xEF\xBB\xBF\x1bLuaT\x00\x19\x93\r\n", 1,
               "binary (precompiled) Lua chunks are not accepted");
}

/* ---- Runtime errors --------------------------------------------------------------------------- */

static void runtime_error_names_its_line(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local t = nil\n\nreturn t.x\n", 3, "attempt to index a nil value (local 't')");
}

static void error_in_a_helper_names_the_helper_line(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  const char *text = "local function check(x)\n"
                     "  if not x then error('x is missing') end\n"
                     "end\n"
                     "check(nil)\n";
  expect_error(&lim, text, 2, "x is missing");
}

static void error_at_level_two_names_the_caller_line(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  const char *text = "local function check(x)\n"
                     "  if not x then error('x is missing', 2) end\n"
                     "end\n"
                     "check(nil)\n";
  expect_error(&lim, text, 4, "x is missing");
}

static void table_error_value_is_reported_readably(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local x = 1\nerror({code = 1})\n", 2,
               "error object is a table value, not a message string");
}

static void nil_error_value_is_reported_readably(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "error()\n", 1, "error object is a nil value");
}

static void deep_recursion_is_a_stack_overflow(void **state) {
  (void)state;
  KrLuaLimits lim = default_limits();
  expect_error(&lim, "local function f(n)\n  return 1 + f(n + 1)\nend\nreturn f(1)\n", 2,
               "stack overflow");
}

static void huge_error_message_is_shortened(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  KrLua *lua = kr_lua_new(&lim);
  KrDiags *diags = kr_diags_new();
  const char *text = "error(('x'):rep(100000), 0)";
  assert_int_equal(kr_lua_run(lua, "recipe.lua", text, strlen(text), 0, diags), KR_ERR);
  assert_true(strlen(diags->items.data[0].message) < 2100);
  assert_contains(diags->items.data[0].message, "[...]");
  kr_diags_free(diags);
  kr_lua_free(lua);
}

/* ---- Patterns ----------------------------------------------------------------------------------- */

static void pattern_longer_than_256_bytes_is_refused(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local p = ('a'):rep(300)\nreturn ('aaa'):find(p)\n", 2,
               "string.find: pattern of 300 bytes is over the sandbox limit of 256 bytes");
}

static void subject_longer_than_64_kib_is_refused(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  expect_error(&lim, "local s = ('a'):rep(70000)\nfor w in s:gmatch('.-b') do end\n", 2,
               "string.gmatch: subject of 70000 bytes is over the sandbox limit of 65536 bytes "
               "for pattern matching");
}

static void pattern_functions_still_work(void **state) {
  (void)state;
  const char *text = "local s, n = ('a,b,c'):gsub(',', ';')\n"
                     "assert(s == 'a;b;c' and n == 2)\n"
                     "assert(string.match('key=42', '(%w+)=(%d+)') == 'key')\n"
                     "assert(('hello'):find('l') == 3)\n"
                     "local k = 0 for _ in ('a b c'):gmatch('%a') do k = k + 1 end\n"
                     "return k\n";
  assert_int_equal(expect_integer(text), 3);
}

/* ---- Good scripts ----------------------------------------------------------------------------- */

static void good_script_returns_a_value(void **state) {
  (void)state;
  assert_int_equal(expect_integer("local t = {}\nfor i = 1, 6 do t[#t + 1] = i end\n"
                                  "return #t * 7"),
                   42);
}

static void math_random_and_print_are_usable(void **state) {
  (void)state;
  const char *text = "print('quiet')\n"
                     "math.randomseed(7)\n"
                     "local x = math.random(1, 10)\n"
                     "assert(x >= 1 and x <= 10)\n"
                     "assert(utf8.len('h\\u{e9}') == 2 and table.concat({1, 2}, ',') == '1,2')\n"
                     "local ok, err = xpcall(error, function(e) return 'handled ' .. e end, 'x', 0)\n"
                     "assert(not ok and err == 'handled x')\n"
                     "assert(select('#', xpcall(function(a, b) return a, b end, print, 1, 2)) == 3)\n"
                     "return x\n";
  lua_Integer x = expect_integer(text);
  assert_true(x >= 1 && x <= 10);
}

static void pcall_runs_a_function_under_the_limits(void **state) {
  (void)state;
  KrLuaLimits lim = quick_limits();
  KrLua *lua = kr_lua_new(&lim);
  KrDiags *diags = kr_diags_new();
  lua_State *L = kr_lua_state(lua);
  const char *text = "function double(x) return 2 * x end\n"
                     "function fail(x)\n"
                     "  error('bad ' .. x)\n"
                     "end\n"
                     "function spin() while true do end end\n";
  assert_int_equal(kr_lua_run(lua, "recipe.lua", text, strlen(text), 0, diags), KR_OK);

  lua_getglobal(L, "double");
  lua_pushinteger(L, 21);
  assert_int_equal(kr_lua_pcall(lua, 1, 1, diags), KR_OK);
  assert_int_equal(lua_tointeger(L, -1), 42);
  lua_pop(L, 1);

  lua_getglobal(L, "fail");
  lua_pushstring(L, "input");
  assert_int_equal(kr_lua_pcall(lua, 1, 1, diags), KR_ERR);
  assert_int_equal(lua_gettop(L), 0);
  assert_string_equal(diags->items.data[0].message, "bad input");
  assert_string_equal(diags->items.data[0].path, "recipe.lua");
  assert_int_equal(diags->items.data[0].line, 3);

  lua_getglobal(L, "spin");
  assert_int_equal(kr_lua_pcall(lua, 0, 0, diags), KR_ERR);
  assert_int_equal(kr_lua_limit_hit(lua), KR_LUA_LIMIT_INSTRUCTIONS);
  assert_int_equal(diags->items.data[1].line, 5);
  assert_contains(diags->items.data[1].message, "instruction limit");

  /* A limit belongs to the run it stopped: the next call has a fresh budget. */
  lua_getglobal(L, "double");
  lua_pushinteger(L, 1);
  assert_int_equal(kr_lua_pcall(lua, 1, 1, diags), KR_OK);
  assert_int_equal(kr_lua_limit_hit(lua), KR_LUA_LIMIT_NONE);
  kr_diags_free(diags);
  kr_lua_free(lua);
}

/* ---- The hostile recipes ----------------------------------------------------------------------- */

static void run_hostile(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  KrArena *arena = kr_arena_new();
  KrDiags *diags = kr_diags_new();
  char *text;
  size_t len;
  assert_int_equal(kr_file_read(path, arena, &text, &len, diags), KR_OK);
  const char *tag = "-- expect: ";
  if (strncmp(text, tag, strlen(tag)) != 0) fail_msg("%s: no '-- expect:' first line", path);
  char *want = text + strlen(tag);
  char *eol = strchr(want, '\n');
  want = kr_arena_strndup(arena, want, eol ? (size_t)(eol - want) : strlen(want));

  KrLuaLimits lim = default_limits();
  KrLua *lua = kr_lua_new(&lim);
  assert_non_null(lua);
  if (kr_lua_run(lua, path, text, len, 0, diags) != KR_ERR) fail_msg("%s: did not fail", path);
  assert_int_equal(diags->items.len, 1);
  if (!strstr(diags->items.data[0].message, want))
    fail_msg("%s: expected \"%s\" in \"%s\"", path, want, diags->items.data[0].message);
  assert_true(diags->items.data[0].line > 1);
  kr_lua_free(lua);
  kr_diags_free(diags);
  kr_arena_free(arena);
}

static void every_hostile_recipe_fails_as_its_first_line_says(void **state) {
  (void)state;
  const char *dir = KR_SOURCE_DIR "/tests/recipes/hostile";
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
    run_hostile(dir, e->d_name);
    n++;
  }
  closedir(d);
  assert_true(n >= 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(infinite_loop_stops_at_the_default_instruction_limit),
    cmocka_unit_test(instruction_limit_names_the_line_of_the_loop),
    cmocka_unit_test(instruction_limit_survives_pcall),
    cmocka_unit_test(instruction_limit_survives_an_xpcall_handler_that_loops),
    cmocka_unit_test(limit_is_reported_when_the_script_returns_after_catching_it),
    cmocka_unit_test(wall_clock_limit_stops_a_loop),
    cmocka_unit_test(table_growth_stops_at_the_memory_limit),
    cmocka_unit_test(huge_string_rep_stops_at_the_memory_limit),
    cmocka_unit_test(string_rep_under_the_cap_but_over_free_memory_stops_too),
    cmocka_unit_test(concatenation_loop_stops_at_the_memory_limit),
    cmocka_unit_test(memory_limit_survives_pcall),
    cmocka_unit_test(memory_limit_not_a_whole_number_of_mib_is_given_in_bytes),
    cmocka_unit_test(garbage_near_the_cap_does_not_fire_the_memory_limit),
    cmocka_unit_test(empty_string_rep_does_not_hang),
    cmocka_unit_test(huge_table_move_is_refused),
    cmocka_unit_test(tiny_memory_limit_makes_new_fail),
    cmocka_unit_test(os_is_nil),
    cmocka_unit_test(io_is_nil),
    cmocka_unit_test(load_is_nil),
    cmocka_unit_test(loadstring_is_nil),
    cmocka_unit_test(dofile_is_nil),
    cmocka_unit_test(require_is_nil),
    cmocka_unit_test(collectgarbage_is_nil),
    cmocka_unit_test(setmetatable_is_nil),
    cmocka_unit_test(string_dump_is_nil),
    cmocka_unit_test(string_dump_is_nil_through_the_string_metatable),
    cmocka_unit_test(only_the_safe_globals_remain),
    cmocka_unit_test(binary_chunk_is_refused),
    cmocka_unit_test(syntax_error_names_its_line),
    cmocka_unit_test(syntax_error_in_a_long_path_keeps_path_and_line),
    cmocka_unit_test(bom_and_shebang_line_are_skipped),
    cmocka_unit_test(error_after_a_shebang_line_keeps_its_line),
    cmocka_unit_test(a_bom_does_not_hide_a_binary_chunk),
    cmocka_unit_test(runtime_error_names_its_line),
    cmocka_unit_test(error_in_a_helper_names_the_helper_line),
    cmocka_unit_test(error_at_level_two_names_the_caller_line),
    cmocka_unit_test(table_error_value_is_reported_readably),
    cmocka_unit_test(nil_error_value_is_reported_readably),
    cmocka_unit_test(deep_recursion_is_a_stack_overflow),
    cmocka_unit_test(huge_error_message_is_shortened),
    cmocka_unit_test(pattern_longer_than_256_bytes_is_refused),
    cmocka_unit_test(subject_longer_than_64_kib_is_refused),
    cmocka_unit_test(pattern_functions_still_work),
    cmocka_unit_test(good_script_returns_a_value),
    cmocka_unit_test(math_random_and_print_are_usable),
    cmocka_unit_test(pcall_runs_a_function_under_the_limits),
    cmocka_unit_test(every_hostile_recipe_fails_as_its_first_line_says),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
