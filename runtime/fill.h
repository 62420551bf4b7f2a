/* runtime/fill.h: deterministic random inputs for verification and timing, and the 16-bit float
 * conversions (round to nearest even) the fills and comparisons need. The same (seed, stream)
 * always gives the same values, so the reference and the candidate see identical inputs.
 *
 * Uniform, normal, integer and zero fills come from a counter-based generator: element i is a
 * pure function of (seed, stream, i) (runtime/fill/kr_fill.h, shared with the GPU's fill module,
 * which makes the same bits on the device), filled here in parallel chunks. The CSR structures
 * (row offsets, column indices) are sequential draws from a xoshiro256** stream and are made on
 * the host only. KrRng is that stream; verification also draws its sampled blocks from it. */
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
/* Writes NaN (floats: the bit patterns KR_GEN_POISON_*) or a sentinel (0x5A5A… for integers)
 * into every element. */
void kr_fill_poison(void *buf, KrDtype t, size_t count);

/* Whether a fill kind comes from the counter-based generator (any element on its own, on the
 * host or the GPU): uniform, normal, ints and zero; the CSR kinds do not. */
bool kr_fill_generated(KrFillKind k);
/* The generator's kind (KR_GEN_*, runtime/fill/kr_fill.h) of a generated fill kind. */
int kr_fill_gen_kind(KrFillKind k);
/* Fills `count` elements with a generated kind: element i = kr_gen_value(kr_gen_key(seed,
 * stream), kind, a, b, i), stored as type t. */
void kr_fill_generate(void *buf, KrDtype t, size_t count, KrFillKind kind, double a, double b,
                      uint64_t seed, uint64_t stream);

/* Runs fn(ctx, k, from, to) over chunk k = [from, to) of [0, count), the chunks
 * kr_fill_nchunks(count) of them, spread over up to 16 threads (one call on this thread when
 * count fits one chunk). fn must be safe to run on several chunks at once. */
void kr_fill_chunks(size_t count, void (*fn)(void *ctx, size_t k, size_t from, size_t to), void *ctx);
size_t kr_fill_nchunks(size_t count);

#endif
