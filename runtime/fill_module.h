/* runtime/fill_module.h: the GPU's fill module (runtime/fill/kr_fill.cu with the generator
 * header kr_fill.h, both embedded in krewrite by cmake/embed.cmake), as text and as a cubin
 * compiled by nvcc through the cubin cache. Private to runtime/. */
#ifndef KR_FILL_MODULE_H
#define KR_FILL_MODULE_H

#include "backend/nvcc.h"

/* The flag the module is compiled with besides nvcc.h's fixed ones: no contraction of a multiply
 * and an add into an FMA, so that the device's doubles round as the host's do (kr_fill.h). */
#define KR_FILL_MODULE_FLAG "-fmad=false"
/* The name the module's text goes by in nvcc's messages and the cache key. */
#define KR_FILL_MODULE_PATH "krewrite-fill/kr_fill.cu"

/* The module's source: kr_fill.h, then kr_fill.cu (whose own #include of the header its guard
 * then skips), from the arena. */
const char *kr__fill_module_text(KrArena *a, size_t *len);
/* Compiles it for `arch` (NULL: sm_90) with KR_FILL_MODULE_FLAG; a cache hit after the first
 * time. nvcc's errors come back in `d` (a missing nvcc among them). */
KrStatus kr__fill_module_build(const char *arch, KrArena *a, KrCubin *out, KrDiags *d);

#endif
