/* runtime/emu_where.c: places and names in an emulator module, for the memory checker's findings
 * (emu_internal.h). The module is built with -g1 and `#line` directives onto the .cu, so
 * addr2line maps a code offset to the .cu line; nm maps the offset of a static shared variable
 * in the shim's section (one from a macro, which the view does not rewrite) to its name. Both run through kr_proc_run (an argv array, a time limit), only when a finding is
 * reported, so they cost nothing on a clean run. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/proc.h"
#include "runtime/emu_internal.h"

#define KR_TOOL_TIMEOUT_S 20.0

/* The output of argv, or NULL when it did not run cleanly. */
static char *tool_output(const char *const *argv, KrArena *a) {
  KrBuf out = {0};
  KrProcResult r;
  char *text = NULL;
  if (kr_proc_run(argv, NULL, KR_TOOL_TIMEOUT_S, &out, NULL, &r) == KR_OK && !r.timed_out &&
      WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && out.data)
    text = kr_arena_strndup(a, out.data, out.len);
  kr_buf_free(&out);
  return text;
}

/* "file:line" of one addr2line line ("file:line (discriminator 2)"), NULL for "??:0". */
static const char *file_line(const char *s, size_t n, const char **file, KrArena *a) {
  const char *colon = NULL;
  for (size_t i = 0; i < n; i++)
    if (s[i] == ':') colon = s + i;
  if (!colon || colon == s || colon[1] < '1' || colon[1] > '9') return NULL;
  size_t digits = strspn(colon + 1, "0123456789");
  *file = kr_arena_strndup(a, s, (size_t)(colon - s));
  return kr_arena_strndup(a, s, (size_t)(colon + 1 + digits - s));
}

static const char *base_of(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Whether addr2line's file is the module's .cu: the same path, or, since the line tables may
 * name it through the build folder or the compiler's working folder, the same file name. */
static bool is_cu(const KrEmuModule *m, const char *file) {
  return strcmp(file, m->path) == 0 || strcmp(base_of(file), base_of(m->path)) == 0;
}

const char *kr__emu_place(const KrEmuModule *m, uint64_t pc, KrArena *a) {
  if (!pc || !m->so) return NULL;
  const char *hex = kr_arena_printf(a, "0x%llx", (unsigned long long)pc);
  const char *argv[] = {"addr2line", "-e", m->so, "-i", hex, NULL};
  char *out = tool_output(argv, a);
  if (!out) return NULL;
  const char *first = NULL;
  /* With -i, the innermost frame comes first, then the calls it was inlined into: the first one
   * in the .cu is where the kernel (or its own device function) made the access. */
  for (char *s = out; *s;) {
    char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    const char *file, *place = file_line(s, n, &file, a);
    if (place && is_cu(m, file)) return kr_arena_printf(a, "%s%s", m->path, place + strlen(file));
    if (place && !first) first = place;
    s += n + (e != NULL);
  }
  return first;
}

/* The last component of a demangled name, "k(float*)::tile" -> "tile". */
static const char *last_component(const char *name, KrArena *a) {
  int depth = 0;
  const char *last = name;
  for (const char *p = name; *p; p++) {
    if (*p == '(' || *p == '<') depth++;
    else if ((*p == ')' || *p == '>') && depth > 0) depth--;
    else if (depth == 0 && p[0] == ':' && p[1] == ':') last = p + 2;
  }
  return kr_arena_strdup(a, last);
}

const char *kr__emu_symbol(const KrEmuModule *m, uint64_t off, uint64_t *inside, KrArena *a) {
  if (!m->so) return NULL;
  const char *argv[] = {"nm", "-C", "-S", "--defined-only", m->so, NULL};
  char *out = tool_output(argv, a);
  if (!out) return NULL;
  for (char *s = out; *s;) {
    char *e = strchr(s, '\n');
    if (e) *e = 0;
    char *p = s, *q;
    unsigned long long addr = strtoull(p, &q, 16), size;
    if (q != p && *q == ' ') {
      p = q + 1;
      size = strtoull(p, &q, 16);
      if (q != p && *q == ' ' && q[1] && strchr("bBdD", q[1]) && q[2] == ' ' && off >= addr &&
          off < addr + size) {
        *inside = off - addr;
        return last_component(q + 3, a);
      }
    }
    if (!e) break;
    s = e + 1;
  }
  return NULL;
}
