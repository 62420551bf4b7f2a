/* runtime/fill/kr_fill.h: the counter-based generator of verification and timing inputs, one
 * header for both sides: the host (runtime/fill.c, C11) and the GPU's fill module
 * (runtime/fill/kr_fill.cu, CUDA C++). Element i of a buffer is a pure function of (seed, stream,
 * i): a key is hashed from the seed and the stream, and element i takes the splitmix64 finaliser
 * of key + (i + 1) * golden (the i-th output of a splitmix64 stream started at the key), so any
 * element is made on its own, on the host in parallel chunks or on the GPU one per thread, with
 * the same value whichever way the work is split.
 *
 * Why both sides give the same bits: only operations that IEEE 754 rounds exactly are used, which
 * C on the host and CUDA on the GPU both implement exactly: integer arithmetic; double +, -, *, /
 * and sqrt (correctly rounded on both, CUDA's double sqrt included); integer to double and double
 * to float conversions (round to nearest even); the 16-bit formats converted from float by the
 * integer code below. log and cos, which libraries round differently, are our own: a range
 * reduction done exactly (exponent bits; a quadrant cut that Sterbenz's lemma keeps exact) and
 * fixed polynomials written as hexadecimal literals, evaluated by Horner's rule in a fixed order.
 * What would break it is a multiply and an add contracted into an FMA, or arithmetic carried in
 * wider registers: the host file is compiled with -ffp-contract=off, and FLT_EVAL_METHOD must be
 * 0 (checked below); the fill module is compiled with -fmad=false (tests/unit/test_fill.c checks
 * that its SASS holds no fused multiply-add). The rounding mode must be the default one.
 *
 * log and cos are only as accurate as random inputs need (a few units in the last place over the
 * ranges used here, x in (2^-53, 1] and a turn in [0, 1)); they are not general functions. The
 * CSR fills are not here: they are sequential and stay on the host (runtime/fill.c). */
#ifndef KR_FILL_GEN_H
#define KR_FILL_GEN_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define KR_GEN_FN __host__ __device__ __forceinline__ /* inline: no warning when unused */
#else
#include <float.h>
#include <string.h>
#define KR_GEN_FN static inline
#if FLT_EVAL_METHOD != 0
#error "kr_fill.h needs double arithmetic without excess precision (FLT_EVAL_METHOD 0)"
#endif
#endif

/* What a random buffer holds; the element types have KrDtype's values (runtime/spec.h). */
enum { KR_GEN_UNIFORM, KR_GEN_NORMAL, KR_GEN_INTS, KR_GEN_ZERO };
enum { KR_GEN_F32, KR_GEN_F16, KR_GEN_BF16, KR_GEN_I32, KR_GEN_I64 };

/* The bit patterns a poisoned element holds: NaN (quiet, positive) in the float formats; integer
 * buffers are filled with the byte 0x5a. */
#define KR_GEN_POISON_F32 0x7fc00000u
#define KR_GEN_POISON_F16 0x7e00u
#define KR_GEN_POISON_BF16 0x7fc0u
#define KR_GEN_POISON_BYTE 0x5au

/* ---- Bits ---------------------------------------------------------------------------------------- */

KR_GEN_FN uint64_t kr_gen_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

KR_GEN_FN uint64_t kr_gen_key(uint64_t seed, uint64_t stream) {
  return kr_gen_mix(seed * 0x9e3779b97f4a7c15ull ^ (stream + 1) * 0xc2b2ae3d27d4eb4full);
}

/* The j-th 64 random bits of the stream with this key. */
KR_GEN_FN uint64_t kr_gen_bits(uint64_t key, uint64_t j) {
  return kr_gen_mix(key + (j + 1) * 0x9e3779b97f4a7c15ull);
}

/* [0, 1), a multiple of 2^-53. */
KR_GEN_FN double kr_gen_unit(uint64_t bits) { return (double)(bits >> 11) * 0x1.0p-53; }

KR_GEN_FN uint64_t kr_gen_double_bits(double x) {
#ifdef __CUDA_ARCH__
  return (uint64_t)__double_as_longlong(x);
#else
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
#endif
}

KR_GEN_FN double kr_gen_bits_double(uint64_t u) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long)u);
#else
  double x;
  memcpy(&x, &u, 8);
  return x;
#endif
}

KR_GEN_FN uint32_t kr_gen_float_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
#endif
}

/* ---- log and cos for the normal fill --------------------------------------------------------------- */

/* ln x for a normal, positive, finite x: x = m * 2^e with m in [sqrt(1/2), sqrt(2)] (exact, from
 * the bits), ln m = 2 atanh(s) with s = (m - 1) / (m + 1), |s| < 0.172, as a series in s^2 to
 * s^23, and e ln 2 in two parts (fdlibm's split) so that e * ln2_hi is exact. */
KR_GEN_FN double kr_gen_log(double x) {
  uint64_t u = kr_gen_double_bits(x);
  int e = (int)((u >> 52) & 0x7ff) - 1023;
  double m = kr_gen_bits_double((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 0x1.6a09e667f3bcdp+0) m = m * 0.5, e++;
  double s = (m - 1.0) / (m + 1.0), s2 = s * s;
  double p = 0x1.642c8590b2164p-5;
  p = 0x1.8618618618618p-5 + s2 * p;
  p = 0x1.af286bca1af28p-5 + s2 * p;
  p = 0x1.e1e1e1e1e1e1ep-5 + s2 * p;
  p = 0x1.1111111111111p-4 + s2 * p;
  p = 0x1.3b13b13b13b14p-4 + s2 * p;
  p = 0x1.745d1745d1746p-4 + s2 * p;
  p = 0x1.c71c71c71c71cp-4 + s2 * p;
  p = 0x1.2492492492492p-3 + s2 * p;
  p = 0x1.999999999999ap-3 + s2 * p;
  p = 0x1.5555555555555p-2 + s2 * p;
  p = 1.0 + s2 * p;
  double de = (double)e;
  return de * 0x1.62e42fefa3800p-1 + (de * 0x1.ef35793c76730p-45 + 2.0 * s * p);
}

/* cos(x) and sin(x) for x in [0, pi/4], Taylor series to x^18 and x^19. */
KR_GEN_FN double kr_gen_cos_poly(double x2) {
  double p = -0x1.6827863b97d97p-53;
  p = 0x1.ae7f3e733b81fp-45 + x2 * p;
  p = -0x1.93974a8c07c9dp-37 + x2 * p;
  p = 0x1.1eed8eff8d898p-29 + x2 * p;
  p = -0x1.27e4fb7789f5cp-22 + x2 * p;
  p = 0x1.a01a01a01a01ap-16 + x2 * p;
  p = -0x1.6c16c16c16c17p-10 + x2 * p;
  p = 0x1.5555555555555p-5 + x2 * p;
  p = -0.5 + x2 * p;
  return 1.0 + x2 * p;
}

KR_GEN_FN double kr_gen_sin_poly(double x, double x2) {
  double p = -0x1.2f49b46814157p-57;
  p = 0x1.952c77030ad4ap-49 + x2 * p;
  p = -0x1.ae7f3e733b81fp-41 + x2 * p;
  p = 0x1.6124613a86d09p-33 + x2 * p;
  p = -0x1.ae64567f544e4p-26 + x2 * p;
  p = 0x1.71de3a556c734p-19 + x2 * p;
  p = -0x1.a01a01a01a01ap-13 + x2 * p;
  p = 0x1.1111111111111p-7 + x2 * p;
  p = -0x1.5555555555555p-3 + x2 * p;
  return x + x * (x2 * p);
}

/* cos(2 pi t) for t in [0, 1): the quadrant q and the fraction f of 4t are exact (4t is exact,
 * and 4t - q is by Sterbenz's lemma), as is the fold of f past one half (1 - f); the angle
 * left, in [0, pi/4], is rounded once. */
KR_GEN_FN double kr_gen_cos_turn(double t) {
  double t4 = t * 4.0;
  int q = (int)t4;
  double f = t4 - (double)q;
  int fold = f > 0.5;
  double g = fold ? 1.0 - f : f;
  double x = g * 0x1.921fb54442d18p+0, x2 = x * x;
  double c = kr_gen_cos_poly(x2), s = kr_gen_sin_poly(x, x2);
  double cos_f = fold ? s : c, sin_f = fold ? c : s;   /* of the angle f * pi/2 */
  switch (q) {
  case 0: return cos_f;
  case 1: return -sin_f;
  case 2: return -cos_f;
  default: return sin_f;
  }
}

/* ---- Values and their storage -------------------------------------------------------------------- */

/* Element i as a double: uniform in [a, b); normal with mean a and deviation b (Box-Muller from
 * the stream's bits 2i and 2i + 1); integers uniform in [a, b] (the modulo's bias is below
 * span / 2^64); zero. */
KR_GEN_FN double kr_gen_value(uint64_t key, int kind, double a, double b, uint64_t i) {
  switch (kind) {
  case KR_GEN_UNIFORM: return a + (b - a) * kr_gen_unit(kr_gen_bits(key, i));
  case KR_GEN_NORMAL: {
    double u = kr_gen_unit(kr_gen_bits(key, 2 * i)), v = kr_gen_unit(kr_gen_bits(key, 2 * i + 1));
    double z = sqrt(-2.0 * kr_gen_log(1.0 - u)) * kr_gen_cos_turn(v);
    return a + b * z;
  }
  case KR_GEN_INTS: {
    double w = b - a;   /* hi below lo, or too wide: a span of 1 (C leaves those casts undefined) */
    uint64_t span = w >= 0 && w < 0x1.0p63 ? (uint64_t)w + 1 : 1;
    return a + (double)(kr_gen_bits(key, i) % span);
  }
  default: return 0.0;
  }
}

/* float to binary16, rounding to nearest even (NaN stays a quiet NaN, overflow goes to inf). */
KR_GEN_FN uint16_t kr_gen_f16(float f) {
  uint32_t x = kr_gen_float_bits(f);
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

/* float to bfloat16, rounding to nearest even (NaN stays a quiet NaN). */
KR_GEN_FN uint16_t kr_gen_bf16(float f) {
  uint32_t x = kr_gen_float_bits(f);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* double to integers truncating toward zero, saturating out of range and NaN to 0, as the GPU's
 * conversions do (C leaves those cases undefined, so they are spelled out). */
KR_GEN_FN int32_t kr_gen_i32(double v) {
  if (v != v) return 0;
  if (v >= 2147483647.0) return 2147483647;
  if (v <= -2147483648.0) return -2147483647 - 1;
  return (int32_t)v;
}

KR_GEN_FN int64_t kr_gen_i64(double v) {
  if (v != v) return 0;
  if (v >= 0x1.0p63) return INT64_MAX;
  if (v <= -0x1.0p63) return INT64_MIN;
  return (int64_t)v;
}

/* Stores element i of a buffer of the given type (KR_GEN_F32 ...). */
KR_GEN_FN void kr_gen_store(void *buf, int dtype, uint64_t i, double v) {
  switch (dtype) {
  case KR_GEN_F32: ((float *)buf)[i] = (float)v; break;
  case KR_GEN_F16: ((uint16_t *)buf)[i] = kr_gen_f16((float)v); break;
  case KR_GEN_BF16: ((uint16_t *)buf)[i] = kr_gen_bf16((float)v); break;
  case KR_GEN_I32: ((int32_t *)buf)[i] = kr_gen_i32(v); break;
  default: ((int64_t *)buf)[i] = kr_gen_i64(v);
  }
}

/* Whether element i holds what the fill stores there, bit for bit. */
KR_GEN_FN int kr_gen_holds(const void *buf, int dtype, uint64_t i, double v) {
  switch (dtype) {
  case KR_GEN_F32: return kr_gen_float_bits(((const float *)buf)[i]) == kr_gen_float_bits((float)v);
  case KR_GEN_F16: return ((const uint16_t *)buf)[i] == kr_gen_f16((float)v);
  case KR_GEN_BF16: return ((const uint16_t *)buf)[i] == kr_gen_bf16((float)v);
  case KR_GEN_I32: return ((const int32_t *)buf)[i] == kr_gen_i32(v);
  default: return ((const int64_t *)buf)[i] == kr_gen_i64(v);
  }
}

#endif
