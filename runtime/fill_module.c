/* runtime/fill_module.c: the GPU's fill module (fill_module.h), put together from the files that
 * cmake/embed.cmake embedded from runtime/fill/ and compiled with nvcc through the cubin cache,
 * like a candidate. Its kernels are listed in runtime/fill/kr_fill.cu. */
#include "runtime/fill_module.h"

#include <string.h>

#include "runtime/emu_internal.h"

/* Generated: build/…/kr_fill_files.c. */
extern const KrEmuFile kr__fill_files[];
extern const size_t kr__fill_nfiles;

static const KrEmuFile *embedded(const char *path) {
  for (size_t i = 0; i < kr__fill_nfiles; i++)
    if (strcmp(kr__fill_files[i].path, path) == 0) return &kr__fill_files[i];
  return NULL;
}

const char *kr__fill_module_text(KrArena *a, size_t *len) {
  const KrEmuFile *h = embedded("kr_fill.h"), *cu = embedded("kr_fill.cu");
  if (!h || !cu) {
    *len = 0;
    return "";
  }
  KrBuf b = {0};
  kr_buf_append(&b, (const char *)h->data, h->len);
  kr_buf_puts(&b, "#line 1 \"kr_fill.cu\"\n");
  kr_buf_append(&b, (const char *)cu->data, cu->len);
  const char *text = kr_arena_strndup(a, b.data, b.len);
  *len = b.len;
  kr_buf_free(&b);
  return text;
}

KrStatus kr__fill_module_build(const char *arch, KrArena *a, KrCubin *out, KrDiags *d) {
  static const char *const flags[] = {KR_FILL_MODULE_FLAG};
  size_t len;
  const char *text = kr__fill_module_text(a, &len);
  KrNvccOptions o = {.arch = arch, .flags = flags, .nflags = 1};
  return kr_nvcc_compile(KR_FILL_MODULE_PATH, text, len, &o, a, out, d);
}
