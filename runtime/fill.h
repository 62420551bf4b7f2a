/* runtime/fill.h: deterministic random inputs for verification and timing, and the 16-bit float
 * conversions (round to nearest even) the fills and comparisons need. The same (seed, stream)
 * always gives the same values, so the reference and the candidate see identical inputs. */
#ifndef KR_FILL_H
#define KR_FILL_H

#include "runtime/spec.h"

typedef struct KrRng {
  uint64_t s[4];
} KrRng;

void kr_rng_seed(KrRng *r, uint64_t seed, uint64_t stream);
uint64_t kr_rng_next(KrRng *r);
double kr_rng_uniform(KrRng *r);   /* [0, 1) */

uint16_t kr_f32_to_f16(float f);
float kr_f16_to_f32(uint16_t h);
uint16_t kr_f32_to_bf16(float f);
float kr_bf16_to_f32(uint16_t h);

/* Element i of a buffer of type t, as a double. */
double kr_elem_get(const void *buf, KrDtype t, size_t i);
void kr_elem_set(void *buf, KrDtype t, size_t i, double v);

/* Fills `count` elements of `buf` as `b->fill` says. For CSR column indices, `rowptr` is the
 * already-filled row-offset buffer (int32 or int64) with `rows + 1` entries; `cols` and `nnz` are
 * the evaluated expressions. Returns a reason on failure (e.g. nnz larger than rows * cols). */
const char *kr_fill_buffer(const KrBufferSpec *b, void *buf, size_t count, uint64_t seed,
                           uint64_t stream, const void *rowptr, KrDtype rowptr_type, size_t rows,
                           int64_t cols, int64_t nnz);
/* Writes NaN (floats) or a sentinel (0x5A5A… for integers) into every element. */
void kr_fill_poison(void *buf, KrDtype t, size_t count);

#endif
