/* tests/fuzz/fuzz_frontend.c: libFuzzer target for the front end. Any byte string goes through
 * the same path as `krewrite kernels --json` and `krewrite parse`: the source checks, the parser,
 * the syntax diagnostics, the kernel model and both of its printers. A crash, a leak or undefined
 * behaviour anywhere on that path is a finding. */
#include "frontend/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  KrArena *arena = kr_arena_new();
  KrDiags *d = kr_diags_new();
  KrSource src;
  if (kr_source_from_text(&src, "fuzz.cu", (const char *)data, size, arena, d) == KR_OK) {
    KrTree *t = kr_tree_parse(&src, d);
    if (t) {
      KrModel *m = kr_model_new(t, arena);
      KrBuf b = {0};
      kr_model_json(m, &b);
      kr_model_text(m, &b);
      kr_tree_sexp(t, &b);
      kr_diags_format(d, &b);
      kr_buf_free(&b);
      kr_tree_free(t);
    }
  }
  kr_diags_free(d);
  kr_arena_free(arena);
  return 0;
}
