/* tests/unit/test_pass_args.c: every argument a pass reads by name (kr_pass_arg(cx, "NAME") in
 * passes/<pass>.c) is one its registration declares, so a misspelt name fails here, not as an
 * internal error when a recipe first runs the pass; and no file outside the passes' own reads a
 * pass's arguments, so the file names the pass. The count of names read is checked to be non-zero,
 * so that a change in how the sources spell the call cannot make this test vacuous. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/kr.h"
#include "passes/pass.h"

/* The file's text (NULL when it cannot be read), in arena a. */
static const char *read_text(const char *path, KrArena *a) {
  KrDiags *d = kr_diags_new();
  char *data = NULL;
  size_t len = 0;
  KrStatus st = kr_file_read(path, a, &data, &len, d);
  kr_diags_free(d);
  return st == KR_OK ? data : NULL;
}

static bool declares(const KrPass *p, const char *name, size_t len) {
  for (size_t i = 0; i < p->nparams; i++)
    if (strlen(p->params[i].name) == len && !strncmp(p->params[i].name, name, len)) return true;
  return false;
}

static const char kCall[] = "kr_pass_arg(cx, \"";

static void every_name_read_is_declared(void **state) {
  (void)state;
  size_t reads = 0;
  KrArena *a = kr_arena_new();
  for (size_t i = 0; i < kr_pass_count(); i++) {
    const KrPass *p = kr_pass_at(i);
    char path[512];
    snprintf(path, sizeof path, "%s/passes/%s.c", KR_SOURCE_DIR, p->name);
    const char *text = read_text(path, a);
    if (!text) fail_msg("pass '%s' has no file %s", p->name, path);
    for (const char *c = strstr(text, kCall); c; c = strstr(c + 1, kCall)) {
      const char *name = c + sizeof kCall - 1, *end = strchr(name, '"');
      if (!declares(p, name, (size_t)(end - name)))
        fail_msg("passes/%s.c reads argument '%.*s', which pass '%s' does not declare", p->name, (int)(end - name), name,
                 p->name);
      reads++;
    }
  }
  kr_arena_free(a);
  assert_true(reads >= 30);
}

static void only_the_passes_own_files_read_arguments(void **state) {
  (void)state;
  char dir[512];
  snprintf(dir, sizeof dir, "%s/passes", KR_SOURCE_DIR);
  DIR *d = opendir(dir);
  assert_non_null(d);
  KrArena *a = kr_arena_new();
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 3 || strcmp(e->d_name + n - 2, ".c") || !strcmp(e->d_name, "pass.c")) continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(n - 2), e->d_name);
    if (kr_pass_find(name)) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    const char *text = read_text(path, a);
    assert_non_null(text);
    if (strstr(text, "kr_pass_arg(")) fail_msg("passes/%s reads a pass's arguments but is no pass's own file", e->d_name);
  }
  closedir(d);
  kr_arena_free(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_name_read_is_declared),
    cmocka_unit_test(only_the_passes_own_files_read_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
