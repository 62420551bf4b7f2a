/* runtime/fill.c: xoshiro256** random numbers, input fills and 16-bit float conversions. */
#include "runtime/fill.h"

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

uint16_t kr_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
  int e = (int)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* may carry into the exponent: correct */
  return (uint16_t)(sign | h);
}

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

uint16_t kr_f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

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

void kr_fill_poison(void *buf, KrDtype t, size_t count) {
  if (t == KR_DT_I32 || t == KR_DT_I64) {
    memset(buf, 0x5a, count * kr_dtype_size(t));
    return;
  }
  for (size_t i = 0; i < count; i++) kr_elem_set(buf, t, i, NAN);
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

static const char *fill_colind(void *buf, KrDtype t, size_t count, KrRng *r, const void *rowptr,
                               KrDtype rt, size_t rows, int64_t cols) {
  for (size_t row = 0; row < rows; row++) {
    int64_t s = (int64_t)kr_elem_get(rowptr, rt, row), e = (int64_t)kr_elem_get(rowptr, rt, row + 1);
    if (s < 0 || e < s || (size_t)e > count || e - s > cols) return "csr_colind: rowptr is not a valid CSR structure";
    /* Selection sampling (Knuth's algorithm S): e - s distinct columns, in increasing order. */
    int64_t need = e - s, at = s;
    for (int64_t c = 0; c < cols && need > 0; c++) {
      if ((double)(cols - c) * kr_rng_uniform(r) < (double)need) {
        kr_elem_set(buf, t, (size_t)at++, (double)c);
        need--;
      }
    }
  }
  return NULL;
}

/* ---- Random fills, in chunks on several threads for large buffers ------------------------------ */

/* A buffer of more than KR_FILL_CHUNKED elements is filled in chunks of KR_FILL_CHUNK, each from
 * its own stream of the generator (deterministic for a seed, whatever the number of threads), so
 * that the gigabyte inputs of a benchmark size take a fraction of a second per core; smaller
 * buffers, the test sizes among them, keep the one stream they always had. */
#define KR_FILL_CHUNKED ((size_t)1 << 22)
#define KR_FILL_CHUNK ((size_t)1 << 20)
#define KR_FILL_THREADS 16

static void fill_random(const KrFill *f, KrDtype t, void *buf, size_t from, size_t to, KrRng *r) {
  switch (f->kind) {
  case KR_FILL_UNIFORM:
    for (size_t i = from; i < to; i++) kr_elem_set(buf, t, i, f->a + (f->b - f->a) * kr_rng_uniform(r));
    break;
  case KR_FILL_NORMAL:
    for (size_t i = from; i < to; i++) {
      double u = kr_rng_uniform(r), v = kr_rng_uniform(r);
      double z = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
      kr_elem_set(buf, t, i, f->a + f->b * z);
    }
    break;
  default: {
    uint64_t span = (uint64_t)(f->b - f->a) + 1;
    for (size_t i = from; i < to; i++) kr_elem_set(buf, t, i, f->a + (double)(kr_rng_next(r) % span));
  }
  }
}

typedef struct Chunks {
  const KrFill *f;
  KrDtype t;
  void *buf;
  size_t count;
  uint64_t seed, stream;
  size_t next;              /* the next chunk to take */
  pthread_mutex_t lock;
} Chunks;

static void *chunk_worker(void *arg) {
  Chunks *c = arg;
  for (;;) {
    pthread_mutex_lock(&c->lock);
    size_t k = c->next++;
    pthread_mutex_unlock(&c->lock);
    size_t from = k * KR_FILL_CHUNK;
    if (from >= c->count) return NULL;
    size_t to = from + KR_FILL_CHUNK < c->count ? from + KR_FILL_CHUNK : c->count;
    KrRng r;
    kr_rng_seed(&r, c->seed, c->stream ^ ((uint64_t)(k + 1) << 32));
    fill_random(c->f, c->t, c->buf, from, to, &r);
  }
}

static void fill_chunked(const KrFill *f, KrDtype t, void *buf, size_t count, uint64_t seed, uint64_t stream) {
  Chunks c = {.f = f, .t = t, .buf = buf, .count = count, .seed = seed, .stream = stream};
  pthread_mutex_init(&c.lock, NULL);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t n = cpus < 1 ? 1 : cpus > KR_FILL_THREADS ? KR_FILL_THREADS : (size_t)cpus;
  pthread_t th[KR_FILL_THREADS];
  size_t started = 0;
  for (size_t i = 1; i < n; i++)
    if (pthread_create(&th[started], NULL, chunk_worker, &c) == 0) started++;
  chunk_worker(&c);   /* this thread works too; with no thread started it does it all */
  for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
  pthread_mutex_destroy(&c.lock);
}

const char *kr_fill_buffer(const KrBufferSpec *b, void *buf, size_t count, uint64_t seed,
                           uint64_t stream, const void *rowptr, KrDtype rowptr_type, size_t rows,
                           int64_t cols, int64_t nnz) {
  KrRng r;
  kr_rng_seed(&r, seed, stream);
  const KrFill *f = &b->fill;
  if ((f->kind == KR_FILL_UNIFORM || f->kind == KR_FILL_NORMAL || f->kind == KR_FILL_INTS) &&
      count > KR_FILL_CHUNKED) {
    fill_chunked(f, b->dtype, buf, count, seed, stream);
    return NULL;
  }
  switch (f->kind) {
  case KR_FILL_ZERO: memset(buf, 0, count * kr_dtype_size(b->dtype)); return NULL;
  case KR_FILL_CSR_ROWPTR: return fill_rowptr(buf, b->dtype, count, &r, cols, nnz);
  case KR_FILL_CSR_COLIND: return fill_colind(buf, b->dtype, count, &r, rowptr, rowptr_type, rows, cols);
  case KR_FILL_UNIFORM:
    for (size_t i = 0; i < count; i++) kr_elem_set(buf, b->dtype, i, f->a + (f->b - f->a) * kr_rng_uniform(&r));
    return NULL;
  case KR_FILL_NORMAL:
    for (size_t i = 0; i < count; i++) {
      double u = kr_rng_uniform(&r), v = kr_rng_uniform(&r);
      double z = sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
      kr_elem_set(buf, b->dtype, i, f->a + f->b * z);
    }
    return NULL;
  case KR_FILL_INTS:
    for (size_t i = 0; i < count; i++) {
      uint64_t span = (uint64_t)(f->b - f->a) + 1;
      kr_elem_set(buf, b->dtype, i, f->a + (double)(kr_rng_next(&r) % span));
    }
    return NULL;
  }
  return "unknown fill";
}
