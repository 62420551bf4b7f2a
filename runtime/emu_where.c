/* runtime/emu_where.c: an address in an emulator module onto the .cu line it came from. The
 * module is compiled from the emulator view, which starts with `#line 1 "<path>"` and keeps every
 * line on its line, so the line table names the .cu directly; addr2line reads it (spawned with
 * an argv through frontend/proc.h, in the parent, never in the child that ran the module). A
 * module built without debug information has no line table, and then there is no answer. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "frontend/proc.h"
#include "runtime/emu_internal.h"

bool kr__emu_pc_line(const char *so, uintptr_t off, KrArena *a, const char **file, uint32_t *line,
                     const char **func) {
  *file = NULL;
  *line = 0;
  if (func) *func = NULL;
  const char *hex = kr_arena_printf(a, "0x%llx", (unsigned long long)off);
  const char *argv[] = {"addr2line", "-e", so, "-f", "-C", hex, NULL};
  KrBuf out = {0};
  KrProcResult r;
  bool ok = kr_proc_run(argv, NULL, 20.0, &out, NULL, &r) == KR_OK && !r.timed_out &&
            WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && out.data;
  /* Two lines: the function, then "file:line" ("??:0" or "file:?" when unknown). */
  char *nl = ok ? strchr(out.data, '\n') : NULL;
  char *colon = nl ? strrchr(nl + 1, ':') : NULL;
  if (colon && colon[1] >= '1' && colon[1] <= '9' && strncmp(nl + 1, "??", 2) != 0) {
    *line = (uint32_t)strtoul(colon + 1, NULL, 10);
    *file = kr_arena_strndup(a, nl + 1, (size_t)(colon - (nl + 1)));
    if (func && strncmp(out.data, "??", 2) != 0) *func = kr_arena_strndup(a, out.data, (size_t)(nl - out.data));
  }
  kr_buf_free(&out);
  return *file != NULL;
}
