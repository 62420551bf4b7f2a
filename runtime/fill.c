/* runtime/fill.c: input fills on the host: uniform, normal, integer and zero fills from the
 * counter-based generator that the GPU's fill module shares (runtime/fill/kr_fill.h), so the two
 * give the same bits; the CSR structures from xoshiro256** streams (sequential, host only);
 * poison; the 16-bit float conversions. Compiled with -ffp-contract=off (CMakeLists.txt), which
 * the generator's bit-for-bit agreement with the GPU needs. */
#include "runtime/fill.h"

#include "runtime/fill/kr_fill.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void kr_rng_seed(KrRng *r, uint64_t seed, uint64_t stream) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ (stream + 1) * 0xc2b2ae3d27d4eb4full;
  for (int i = 0; i < 4; i++) r->s[i] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t kr_rng_next(KrRng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
  return result;
}

double kr_rng_uniform(KrRng *r) { return (double)(kr_rng_next(r) >> 11) * 0x1.0p-53; }

/* ---- 16-bit floats -------------------------------------------------------------------------------- */

uint16_t kr_f32_to_f16(float f) { return kr_gen_f16(f); }

float kr_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, x;
  if (exp == 0) {
    if (!man) x = sign;
    else {
      int e = -1;
      do man <<= 1, e++;
      while (!(man & 0x400));
      x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000 | (man << 13);
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &x, 4);
  return f;
}

uint16_t kr_f32_to_bf16(float f) { return kr_gen_bf16(f); }

float kr_bf16_to_f32(uint16_t h) {
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}

/* ---- Elements ------------------------------------------------------------------------------------ */

double kr_elem_get(const void *buf, KrDtype t, size_t i) {
  switch (t) {
  case KR_DT_F32: return ((const float *)buf)[i];
  case KR_DT_F16: return kr_f16_to_f32(((const uint16_t *)buf)[i]);
  case KR_DT_BF16: return kr_bf16_to_f32(((const uint16_t *)buf)[i]);
  case KR_DT_I32: return ((const int32_t *)buf)[i];
  default: return (double)((const int64_t *)buf)[i];
  }
}

void kr_elem_set(void *buf, KrDtype t, size_t i, double v) {
  switch (t) {
  case KR_DT_F32: ((float *)buf)[i] = (float)v; break;
  case KR_DT_F16: ((uint16_t *)buf)[i] = kr_f32_to_f16((float)v); break;
  case KR_DT_BF16: ((uint16_t *)buf)[i] = kr_f32_to_bf16((float)v); break;
  case KR_DT_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
  default: ((int64_t *)buf)[i] = (int64_t)v;
  }
}

/* ---- CSR structure ------------------------------------------------------------------------------- */

static const char *fill_rowptr(void *buf, KrDtype t, size_t count, KrRng *r, int64_t cols,
                               int64_t nnz) {
  size_t rows = count - 1;
  if (rows == 0 || (cols > 0 && nnz > (int64_t)rows * cols)) return "csr_rowptr: nnz exceeds rows * cols";
  /* Each non-zero lands in a random row that still has room; prefix sums give the offsets. */
  int64_t *len = calloc(rows, sizeof *len);
  for (int64_t k = 0; k < nnz; k++) {
    size_t row;
    do row = (size_t)(kr_rng_next(r) % rows);
    while (cols > 0 && len[row] >= cols);
    len[row]++;
  }
  int64_t at = 0;
  for (size_t i = 0; i <= rows; i++) {
    kr_elem_set(buf, t, i, (double)at);
    if (i < rows) at += len[i];
  }
  free(len);
  return NULL;
}

/* Floyd's sampling of `need` distinct columns of [0, cols), into `cols_out` in increasing order:
 * O(need^2) for a sparse row, where a walk over every column would cost O(cols) (a million rows of
 * a million columns would take hours). A draw already taken gives j instead, which is larger than
 * every column so far. */
static void floyd(int64_t *cols_out, int64_t need, int64_t cols, KrRng *r) {
  int64_t n = 0;
  for (int64_t j = cols - need; j < cols; j++) {
    int64_t v = (int64_t)(kr_rng_next(r) % (uint64_t)(j + 1)), pos = n;
    while (pos > 0 && cols_out[pos - 1] > v) pos--;
    if (pos > 0 && cols_out[pos - 1] == v) {
      cols_out[n++] = j;
      continue;
    }
    memmove(cols_out + pos + 1, cols_out + pos, (size_t)(n - pos) * sizeof *cols_out);
    cols_out[pos] = v;
    n++;
  }
}

static const char *fill_colind(void *buf, KrDtype t, size_t count, KrRng *r, const void *rowptr,
                               KrDtype rt, size_t rows, int64_t cols) {
  int64_t *picked = NULL, cap = 0;
  for (size_t row = 0; row < rows; row++) {
    int64_t s = (int64_t)kr_elem_get(rowptr, rt, row), e = (int64_t)kr_elem_get(rowptr, rt, row + 1);
    if (s < 0 || e < s || (size_t)e > count || e - s > cols) {
      free(picked);
      return "csr_colind: rowptr is not a valid CSR structure";
    }
    int64_t need = e - s, at = s;
    if (need * 8 < cols) {   /* a sparse row */
      if (need > cap) {
        int64_t *grown = realloc(picked, (size_t)need * sizeof *grown);
        if (!grown) {
          free(picked);
          return "out of memory for csr_colind";
        }
        picked = grown, cap = need;
      }
      floyd(picked, need, cols, r);
      for (int64_t k = 0; k < need; k++) kr_elem_set(buf, t, (size_t)at++, (double)picked[k]);
      continue;
    }
    /* A dense row: selection sampling (Knuth's algorithm S), in increasing order. */
    for (int64_t c = 0; c < cols && need > 0; c++) {
      if ((double)(cols - c) * kr_rng_uniform(r) < (double)need) {
        kr_elem_set(buf, t, (size_t)at++, (double)c);
        need--;
      }
    }
  }
  free(picked);
  return NULL;
}

/* ---- Fills from the counter-based generator, in chunks on several threads for large buffers ---- */

/* Each element is a pure function of (seed, stream, i) (runtime/fill/kr_fill.h), so a buffer is
 * cut into chunks that threads take in any order with the same result; buffers under
 * KR_FILL_CHUNK elements (the test sizes) are filled by the calling thread alone. */
#define KR_FILL_CHUNK ((size_t)1 << 20)
#define KR_FILL_THREADS 16

typedef struct Chunks {
  size_t count, chunk;
  void (*fn)(void *ctx, size_t k, size_t from, size_t to);
  void *ctx;
  size_t next;              /* the next chunk to take */
  pthread_mutex_t lock;
} Chunks;

static void *chunk_worker(void *arg) {
  Chunks *c = arg;
  for (;;) {
    pthread_mutex_lock(&c->lock);
    size_t k = c->next++;
    pthread_mutex_unlock(&c->lock);
    if (k >= (c->count + c->chunk - 1) / c->chunk) return NULL;
    size_t from = k * c->chunk, to = from + c->chunk < c->count ? from + c->chunk : c->count;
    c->fn(c->ctx, k, from, to);
  }
}

size_t kr_fill_nchunks(size_t count) { return count ? (count + KR_FILL_CHUNK - 1) / KR_FILL_CHUNK : 0; }

void kr_fill_chunks(size_t count, void (*fn)(void *ctx, size_t k, size_t from, size_t to), void *ctx) {
  if (count <= KR_FILL_CHUNK) {
    if (count) fn(ctx, 0, 0, count);
    return;
  }
  Chunks c = {.count = count, .chunk = KR_FILL_CHUNK, .fn = fn, .ctx = ctx};
  pthread_mutex_init(&c.lock, NULL);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t n = cpus < 1 ? 1 : cpus > KR_FILL_THREADS ? KR_FILL_THREADS : (size_t)cpus;
  if (n > kr_fill_nchunks(count)) n = kr_fill_nchunks(count);
  pthread_t th[KR_FILL_THREADS];
  size_t started = 0;
  for (size_t i = 1; i < n; i++)
    if (pthread_create(&th[started], NULL, chunk_worker, &c) == 0) started++;
  chunk_worker(&c);   /* this thread works too; with no thread started it does it all */
  for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
  pthread_mutex_destroy(&c.lock);
}

bool kr_fill_generated(KrFillKind k) {
  return k == KR_FILL_UNIFORM || k == KR_FILL_NORMAL || k == KR_FILL_INTS || k == KR_FILL_ZERO;
}

int kr_fill_gen_kind(KrFillKind k) {
  switch (k) {
  case KR_FILL_UNIFORM: return KR_GEN_UNIFORM;
  case KR_FILL_NORMAL: return KR_GEN_NORMAL;
  case KR_FILL_INTS: return KR_GEN_INTS;
  default: return KR_GEN_ZERO;
  }
}

typedef struct GenJob {
  void *buf;
  int kind, dtype;
  double a, b;
  uint64_t key;
} GenJob;

static void gen_chunk(void *ctx, size_t k, size_t from, size_t to) {
  const GenJob *g = ctx;
  (void)k;
  for (size_t i = from; i < to; i++) kr_gen_store(g->buf, g->dtype, i, kr_gen_value(g->key, g->kind, g->a, g->b, i));
}

void kr_fill_generate(void *buf, KrDtype t, size_t count, KrFillKind kind, double a, double b,
                      uint64_t seed, uint64_t stream) {
  if (kind == KR_FILL_ZERO) {
    memset(buf, 0, count * kr_dtype_size(t));
    return;
  }
  GenJob g = {buf, kr_fill_gen_kind(kind), (int)t, a, b, kr_gen_key(seed, stream)};
  kr_fill_chunks(count, gen_chunk, &g);
}

typedef struct PoisonJob {
  void *buf;
  KrDtype t;
} PoisonJob;

static void poison_chunk(void *ctx, size_t k, size_t from, size_t to) {
  const PoisonJob *p = ctx;
  (void)k;
  if (p->t == KR_DT_F32) {
    uint32_t *x = p->buf;
    for (size_t i = from; i < to; i++) x[i] = KR_GEN_POISON_F32;
  } else if (p->t == KR_DT_F16 || p->t == KR_DT_BF16) {
    uint16_t *x = p->buf, v = p->t == KR_DT_F16 ? KR_GEN_POISON_F16 : KR_GEN_POISON_BF16;
    for (size_t i = from; i < to; i++) x[i] = v;
  } else {
    size_t es = kr_dtype_size(p->t);
    memset((char *)p->buf + from * es, KR_GEN_POISON_BYTE, (to - from) * es);
  }
}

void kr_fill_poison(void *buf, KrDtype t, size_t count) {
  PoisonJob p = {buf, t};
  kr_fill_chunks(count, poison_chunk, &p);
}

const char *kr_fill_buffer(const KrBufferSpec *b, void *buf, size_t count, uint64_t seed,
                           uint64_t stream, const void *rowptr, KrDtype rowptr_type, size_t rows,
                           int64_t cols, int64_t nnz) {
  const KrFill *f = &b->fill;
  if (kr_fill_generated(f->kind)) {
    kr_fill_generate(buf, b->dtype, count, f->kind, f->a, f->b, seed, stream);
    return NULL;
  }
  KrRng r;
  kr_rng_seed(&r, seed, stream);
  switch (f->kind) {
  case KR_FILL_CSR_ROWPTR: return fill_rowptr(buf, b->dtype, count, &r, cols, nnz);
  case KR_FILL_CSR_COLIND: return fill_colind(buf, b->dtype, count, &r, rowptr, rowptr_type, rows, cols);
  default: return "unknown fill";
  }
}
