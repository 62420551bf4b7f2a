// runtime/emu/kr_emu_intrin.h: CUDA device intrinsics for the CPU emulator (included by
// kr_cuda_shim.h after the scheduler): barriers, warp shuffles and votes as warp rendezvous,
// atomics, math and bit intrinsics, cache-hinted loads and stores, async copies.
#ifndef KR_EMU_INTRIN_H
#define KR_EMU_INTRIN_H

// An intrinsic the emulator does not provide: a compile-time error naming it, at its use.
#define KR_EMU_UNSUPPORTED(name)                                                                   \
  template <class... A>                                                                          \
  inline int name(A...) {                                                                        \
    static_assert(sizeof...(A) < 0, #name " is not supported by the krewrite CPU emulator");      \
    return 0;                                                                                    \
  }

// ---- Barriers and fences ---------------------------------------------------------------------------

inline void __syncthreads() { kr_emu::block_barrier(1, "__syncthreads"); }
inline int __syncthreads_count(int p) { return kr_emu::block_barrier(p, "__syncthreads_count"); }
inline int __syncthreads_and(int p) {
  return kr_emu::block_barrier(p, "__syncthreads_and") == (int)kr_emu::S.n;
}
inline int __syncthreads_or(int p) { return kr_emu::block_barrier(p, "__syncthreads_or") != 0; }
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  kr_emu::warp_arrive(kr_emu::W_SYNC, "__syncwarp", mask, 0, 32, nullptr, 0);
}
// One OS thread runs every fiber, so every write is already visible to every thread.
inline void __threadfence() { kr_emu::check_fence(); }
inline void __threadfence_block() {}
inline void __threadfence_system() {}
inline void __nanosleep(unsigned) { kr_emu::nap(); }
inline long long clock64() { return (long long)(kr_emu::S.clock += 64); }
inline unsigned long long __globaltimer() { return kr_emu::S.clock += 64; }
[[noreturn]] inline void __trap() { kr_emu::fail("called __trap()"); }
[[noreturn]] inline void __brkpt() { kr_emu::fail("called __brkpt()"); }
inline unsigned __activemask() { return kr_emu::live_lanes(); }

// ---- Warp shuffles and votes ---------------------------------------------------------------------------

namespace kr_emu {
template <class T>
inline T shfl(uint8_t op, const char *name, unsigned mask, T v, int arg, int width) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= kWarpBytes,
                "a warp shuffle carries a trivially copyable value of at most 32 bytes");
  Fiber *f = warp_arrive(op, name, mask, arg, width, &v, sizeof(T));
  T r;
  memcpy(static_cast<void *>(&r), f->res, sizeof(T));
  return r;
}
}  // namespace kr_emu

template <class T>
inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  return kr_emu::shfl(kr_emu::W_SHFL_IDX, "__shfl_sync", mask, var, src_lane, width);
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return kr_emu::shfl(kr_emu::W_SHFL_UP, "__shfl_up_sync", mask, var, (int)delta, width);
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return kr_emu::shfl(kr_emu::W_SHFL_DOWN, "__shfl_down_sync", mask, var, (int)delta, width);
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return kr_emu::shfl(kr_emu::W_SHFL_XOR, "__shfl_xor_sync", mask, var, lane_mask, width);
}

inline unsigned __ballot_sync(unsigned mask, int pred) {
  return kr_emu::warp_arrive(kr_emu::W_BALLOT, "__ballot_sync", mask, pred != 0, 32, nullptr, 0)->res_mask;
}
inline int __any_sync(unsigned mask, int pred) {
  return kr_emu::warp_arrive(kr_emu::W_ANY, "__any_sync", mask, pred != 0, 32, nullptr, 0)->res_pred;
}
inline int __all_sync(unsigned mask, int pred) {
  return kr_emu::warp_arrive(kr_emu::W_ALL, "__all_sync", mask, pred != 0, 32, nullptr, 0)->res_pred;
}
inline int __uni_sync(unsigned mask, int pred) {
  kr_emu::Fiber *f = kr_emu::warp_arrive(kr_emu::W_BALLOT, "__uni_sync", mask, pred != 0, 32, nullptr, 0);
  return f->res_mask == 0 || f->res_mask == (mask & kr_emu::live_lanes());
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_any_sync takes a 32- or 64-bit value");
  return kr_emu::warp_arrive(kr_emu::W_MATCH_ANY, "__match_any_sync", mask, 0, 32, &value, sizeof(T))->res_mask;
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int *pred) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_all_sync takes a 32- or 64-bit value");
  kr_emu::Fiber *f = kr_emu::warp_arrive(kr_emu::W_MATCH_ALL, "__match_all_sync", mask, 0, 32, &value, sizeof(T));
  *pred = f->res_pred;
  return f->res_mask;
}

namespace kr_emu {
inline uint32_t reduce32(uint8_t op, const char *name, unsigned mask, uint32_t v) {
  Fiber *f = warp_arrive(op, name, mask, 0, 32, &v, 4);
  uint32_t r;
  memcpy(&r, f->res, 4);
  return r;
}
}  // namespace kr_emu
inline unsigned __reduce_add_sync(unsigned m, unsigned v) { return kr_emu::reduce32(kr_emu::W_RED_ADD, "__reduce_add_sync", m, v); }
inline int __reduce_add_sync(unsigned m, int v) { return (int)kr_emu::reduce32(kr_emu::W_RED_ADD, "__reduce_add_sync", m, (uint32_t)v); }
inline unsigned __reduce_min_sync(unsigned m, unsigned v) { return kr_emu::reduce32(kr_emu::W_RED_UMIN, "__reduce_min_sync", m, v); }
inline int __reduce_min_sync(unsigned m, int v) { return (int)kr_emu::reduce32(kr_emu::W_RED_MIN, "__reduce_min_sync", m, (uint32_t)v); }
inline unsigned __reduce_max_sync(unsigned m, unsigned v) { return kr_emu::reduce32(kr_emu::W_RED_UMAX, "__reduce_max_sync", m, v); }
inline int __reduce_max_sync(unsigned m, int v) { return (int)kr_emu::reduce32(kr_emu::W_RED_MAX, "__reduce_max_sync", m, (uint32_t)v); }
inline unsigned __reduce_and_sync(unsigned m, unsigned v) { return kr_emu::reduce32(kr_emu::W_RED_AND, "__reduce_and_sync", m, v); }
inline unsigned __reduce_or_sync(unsigned m, unsigned v) { return kr_emu::reduce32(kr_emu::W_RED_OR, "__reduce_or_sync", m, v); }
inline unsigned __reduce_xor_sync(unsigned m, unsigned v) { return kr_emu::reduce32(kr_emu::W_RED_XOR, "__reduce_xor_sync", m, v); }

// The pre-CUDA 9 forms without a mask are not available on sm_70 and later.
KR_EMU_UNSUPPORTED(__shfl)
KR_EMU_UNSUPPORTED(__shfl_up)
KR_EMU_UNSUPPORTED(__shfl_down)
KR_EMU_UNSUPPORTED(__shfl_xor)
KR_EMU_UNSUPPORTED(__ballot)
KR_EMU_UNSUPPORTED(__any)
KR_EMU_UNSUPPORTED(__all)

// ---- Atomics ---------------------------------------------------------------------------------------------
// Fibers switch only at barriers and collectives, so a plain read-modify-write is atomic here.
// They are not watched by the memory checker, which is told instead that they were atomic.

#define KR_ATOMIC(name, T, expr)                                                                   \
  KR_EMU_NOSAN inline T name(T *a, T v) {                                                        \
    kr_emu::check_atomic(a, sizeof(T), __builtin_return_address(0));                             \
    T o = *a;                                                                                    \
    *a = (expr);                                                                                 \
    return o;                                                                                    \
  }
#define KR_ATOMIC_INTS(name, expr)                                                                 \
  KR_ATOMIC(name, int, expr)                                                                     \
  KR_ATOMIC(name, unsigned int, expr)                                                            \
  KR_ATOMIC(name, unsigned long long, expr)                                                      \
  KR_ATOMIC(name, long long, expr)

KR_ATOMIC_INTS(atomicAdd, o + v)
KR_ATOMIC(atomicAdd, float, o + v)
KR_ATOMIC(atomicAdd, double, o + v)
KR_ATOMIC(atomicSub, int, o - v)
KR_ATOMIC(atomicSub, unsigned int, o - v)
KR_ATOMIC_INTS(atomicExch, v)
KR_ATOMIC(atomicExch, float, v)
KR_ATOMIC_INTS(atomicMin, v < o ? v : o)
KR_ATOMIC_INTS(atomicMax, v > o ? v : o)
KR_ATOMIC_INTS(atomicAnd, o & v)
KR_ATOMIC_INTS(atomicOr, o | v)
KR_ATOMIC_INTS(atomicXor, o ^ v)
KR_ATOMIC(atomicInc, unsigned int, o >= v ? 0u : o + 1u)
KR_ATOMIC(atomicDec, unsigned int, (o == 0u || o > v) ? v : o - 1u)
#undef KR_ATOMIC_INTS
#undef KR_ATOMIC

#define KR_CAS(T)                                                                                  \
  KR_EMU_NOSAN inline T atomicCAS(T *a, T cmp, T v) {                                            \
    kr_emu::check_atomic(a, sizeof(T), __builtin_return_address(0));                             \
    T o = *a;                                                                                    \
    if (o == cmp) *a = v;                                                                        \
    return o;                                                                                    \
  }
KR_CAS(int)
KR_CAS(unsigned int)
KR_CAS(unsigned long long)
KR_CAS(unsigned short)
#undef KR_CAS

// Scoped forms behave the same with one block at a time.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor

// ---- Bit reinterpretation and integer intrinsics -----------------------------------------------------------

namespace kr_emu {
template <class To, class From>
inline To bits(From f) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To t;
  memcpy(&t, &f, sizeof t);
  return t;
}
}  // namespace kr_emu

inline float __int_as_float(int x) { return kr_emu::bits<float>(x); }
inline int __float_as_int(float x) { return kr_emu::bits<int>(x); }
inline float __uint_as_float(unsigned x) { return kr_emu::bits<float>(x); }
inline unsigned __float_as_uint(float x) { return kr_emu::bits<unsigned>(x); }
inline double __longlong_as_double(long long x) { return kr_emu::bits<double>(x); }
inline long long __double_as_longlong(double x) { return kr_emu::bits<long long>(x); }
inline int __double2hiint(double x) { return (int)(kr_emu::bits<unsigned long long>(x) >> 32); }
inline int __double2loint(double x) { return (int)(unsigned)kr_emu::bits<unsigned long long>(x); }
inline double __hiloint2double(int hi, int lo) {
  return kr_emu::bits<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; i++) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (s & 31)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)((v << (s > 32 ? 32 : s)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (s & 31));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
  return (unsigned)(v >> (s > 32 ? 32 : s));
}
inline int __mul24(int a, int b) { return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
inline unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
inline unsigned __sad(int a, int b, unsigned c) { return c + (unsigned)(a > b ? (long long)a - b : (long long)b - a); }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; i++) c += (int)(signed char)(a >> (8 * i)) * (int)(signed char)(b >> (8 * i));
  return c;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  for (int i = 0; i < 4; i++) c += ((a >> (8 * i)) & 0xff) * ((b >> (8 * i)) & 0xff);
  return c;
}

// min and max as CUDA overloads them: mixed signed/unsigned gives unsigned, floats follow fmin.
template <class A, class B>
inline constexpr std::common_type_t<A, B> min(A a, B b) {
  using C = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<C>) return std::fmin((C)a, (C)b);
  else return (C)b < (C)a ? (C)b : (C)a;
}
template <class A, class B>
inline constexpr std::common_type_t<A, B> max(A a, B b) {
  using C = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<C>) return std::fmax((C)a, (C)b);
  else return (C)a < (C)b ? (C)b : (C)a;
}
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ---- Floating-point intrinsics --------------------------------------------------------------------------------
// The fast intrinsics err as the device's do, so that a fast-math candidate's error measured on the
// CPU has the GPU's magnitude. Each is the instruction sequence nvcc emits for sm_90 (read from
// its SASS, default flags, no -ftz), with the same fp32 roundings of the products around the
// special function unit's approximations (MUFU.*):
//   __expf(x)    = EX2(x * 1.44269502f)               __exp10f(x) = EX2(x * 3.32192802f)
//   __log2f(x)   = LG2(x)                             __logf(x)   = LG2(x) * 0.693147182f
//   __log10f(x)  = LG2(x) * 0.301030010f              __powf(x, y) = EX2(y * LG2(x))
//   __sinf(x)    = SIN(x * 0.159154937f rounded toward zero), __cosf likewise with COS
//   __tanf(x)    = __sinf(x) * RCP(__cosf(x))         __fdividef(a, b) = a * RCP(b)
//   rsqrtf(x)    = RSQ(x)
// The MUFU instructions flush subnormals; the code around them rescales: an EX2 argument below
// -126 is halved and the result squared, a subnormal LG2 argument is scaled by 2^24 and 24
// subtracted, a subnormal RSQ argument scaled by 2^24 and the result by 2^12, a subnormal divisor
// (and its dividend) scaled by 2^24. The product x * log2(e) rounded to fp32 is why __expf's
// error grows with |x| (the Programming Guide's 2 + floor(|1.173 x|) ulp); the fp32 scaling to
// revolutions is why __sinf's grows outside [-pi, pi]; RCP flushing a subnormal 1/b to zero is
// why __fdividef gives 0 for 2^126 < |b| < 2^128 (and NaN for an infinite a).
// The MUFU approximations themselves (table lookups with interpolation, not published) are
// modelled as the exact value, in double, perturbed by a deterministic amount within the
// instruction's error and rounded to fp32: the perturbation is a hash of the argument's bits, so
// a run is repeatable and neighbouring arguments err differently, as on the device. Amplitudes
// (relative unless said): EX2 2^-24, LG2 2^-23.5 max(1, |log2 x|) absolute, RCP 2^-24.7, RSQ
// 2^-24.5, SIN 2^-24.5 and COS 2^-24 absolute (for SIN, the rounding toward zero and the fp32
// constant 1/2pi already spend 3.1e-7 of __sinf's 3.6e-7 at x = pi). They were fitted so that
// the mean error of each intrinsic over 32768 arguments is that of an H200's (within 0.85x-2.6x,
// tests/gpu/gpu_intrin.c), and with the final rounding each stays within the Guide's table
// (ex2 2 ulp, __log2f 2^-22 and __log10f 2^-24 absolute on [0.5, 2], rsqrtf 2 ulp, __fdividef
// 2 ulp, __sinf 2^-21.41 and __cosf 2^-21.19 absolute on [-pi, pi]; tests/unit/test_emu_intrin.c).

namespace kr_emu {
// Flush a subnormal to a zero of its sign, as the MUFU instructions do.
inline float ftz(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x; }
inline bool tiny(float x) { return std::fabs(x) < FLT_MIN; }
// A deterministic value in [-1, 1) from an argument's bits and a salt naming the instruction.
inline double wobble(float x, uint32_t salt) {
  uint32_t h = bits<uint32_t>(x) ^ salt;
  h ^= h >> 16, h *= 0x7feb352du, h ^= h >> 15, h *= 0x846ca68bu, h ^= h >> 16;
  return (double)h * 0x1p-31 - 1.0;
}
// exact * (1 + amplitude * wobble), rounded to fp32 and flushed: a MUFU's relative error.
inline float mufu_rel(double exact, float arg, uint32_t salt, double amplitude) {
  return ftz((float)(exact * (1.0 + amplitude * wobble(arg, salt))));
}
inline float mufu_ex2(float x) {
  x = ftz(x);
  if (std::isnan(x)) return x;
  return mufu_rel(exp2((double)x), x, 0x0e2u, 0x1p-24);
}
inline float mufu_lg2(float x) {
  x = ftz(x);
  if (x == 0.0f) return -INFINITY;
  if (!(x > 0.0f)) return NAN;
  if (std::isinf(x)) return x;
  double v = log2((double)x);
  return (float)(v + 0x1p-24 * 1.4142135623730951 * std::fmax(1.0, std::fabs(v)) * wobble(x, 0x192u));
}
inline float mufu_rcp(float x) {
  x = ftz(x);
  if (x == 0.0f || std::isinf(x) || std::isnan(x)) return 1.0f / x;
  return mufu_rel(1.0 / (double)x, x, 0x4c9u, 0x1p-25 * 1.2311444133449163);
}
inline float mufu_rsq(float x) {
  x = ftz(x);
  if (!(x > 0.0f) || std::isinf(x)) return 1.0f / sqrtf(x);  // 0 -> inf, inf -> 0, < 0 -> NaN
  return mufu_rel(1.0 / sqrt((double)x), x, 0x5e7u, 0x1p-25 * 1.4142135623730951);
}
// MUFU.SIN/COS take the argument in revolutions and use its fractional part.
inline float mufu_sincos(float rev, bool cosine) {
  rev = ftz(rev);
  if (std::isinf(rev) || std::isnan(rev)) return NAN;
  double a = 6.283185307179586 * ((double)rev - nearbyint((double)rev));
  double v = cosine ? cos(a) : sin(a);
  double amp = cosine ? 0x1p-24 : 0x1p-25 * 1.4142135623730951;
  return ftz((float)(v + amp * wobble(rev, cosine ? 0xc05u : 0x514u)));
}
// x * y rounded toward zero, as FMUL.RZ does (the product is exact in double).
inline float mul_rz(float x, float y) {
  double p = (double)x * y;
  float f = (float)p;
  return std::fabs((double)f) > std::fabs(p) ? std::nextafter(f, 0.0f) : f;
}
// The sequences around the MUFUs that keep subnormals (see above).
inline float ex2(float x) {
  if (x < -126.0f) {
    float h = mufu_ex2(x * 0.5f);
    return h * h;
  }
  return mufu_ex2(x);
}
inline float lg2(float x) { return tiny(x) ? mufu_lg2(x * 0x1p24f) + -24.0f : mufu_lg2(x); }
inline float rsq(float x) { return tiny(x) ? mufu_rsq(x * 0x1p24f) * 4096.0f : mufu_rsq(x); }
inline float div_approx(float a, float b) {
  if (tiny(b)) a *= 0x1p24f, b *= 0x1p24f;
  return a * mufu_rcp(b);
}
inline float sin_approx(float x) { return mufu_sincos(mul_rz(x, 0.159154937f), false); }
inline float cos_approx(float x) { return mufu_sincos(mul_rz(x, 0.159154937f), true); }
}  // namespace kr_emu

inline float __expf(float x) { return kr_emu::ex2(x * 1.44269502f); }
inline float __exp10f(float x) { return kr_emu::ex2(x * 3.32192802f); }
inline float __log2f(float x) { return kr_emu::lg2(x); }
inline float __logf(float x) { return kr_emu::lg2(x) * 0.693147182f; }
inline float __log10f(float x) { return kr_emu::lg2(x) * 0.301030010f; }
inline float __powf(float x, float y) { return kr_emu::ex2(y * kr_emu::lg2(x)); }
inline float __sinf(float x) { return kr_emu::sin_approx(x); }
inline float __cosf(float x) { return kr_emu::cos_approx(x); }
inline void __sincosf(float x, float *s, float *c) { *s = __sinf(x), *c = __cosf(x); }
inline float __tanf(float x) { return kr_emu::div_approx(__sinf(x), __cosf(x)); }
inline float __fdividef(float a, float b) { return kr_emu::div_approx(a, b); }
inline float fdividef(float a, float b) { return __fdividef(a, b); }
// Exact on the device too: a clamp to [0, 1], with NaN giving 0.
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }
inline float rsqrtf(float x) { return kr_emu::rsq(x); }
// The double-precision rsqrt is within 1 ulp on the device; this is within 1 ulp too.
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
inline float sinpif(float x) { return sinf((float)M_PI * x); }
inline float cospif(float x) { return cosf((float)M_PI * x); }
inline double sinpi(double x) { return sin(M_PI * x); }
inline double cospi(double x) { return cos(M_PI * x); }
inline void sincospif(float x, float *s, float *c) { *s = sinpif(x), *c = cospif(x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
inline float rhypotf(float a, float b) { return 1.0f / hypotf(a, b); }
inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
inline float norm4df(float a, float b, float c, float d) { return sqrtf(a * a + b * b + c * c + d * d); }
inline float rnorm4df(float a, float b, float c, float d) { return 1.0f / norm4df(a, b, c, d); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline float __frsqrt_rn(float a) { return 1.0f / sqrtf(a); }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __fmaf_ieee_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double a) { return 1.0 / a; }
inline double __dsqrt_rn(double a) { return sqrt(a); }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
// Other rounding modes would need the FPU's rounding mode changed around each operation.
KR_EMU_UNSUPPORTED(__fadd_rz)
KR_EMU_UNSUPPORTED(__fadd_ru)
KR_EMU_UNSUPPORTED(__fadd_rd)
KR_EMU_UNSUPPORTED(__fmul_rz)
KR_EMU_UNSUPPORTED(__fmul_ru)
KR_EMU_UNSUPPORTED(__fmul_rd)
KR_EMU_UNSUPPORTED(__fmaf_rz)
KR_EMU_UNSUPPORTED(__fmaf_ru)
KR_EMU_UNSUPPORTED(__fmaf_rd)
KR_EMU_UNSUPPORTED(__fdiv_rz)
KR_EMU_UNSUPPORTED(__fdiv_ru)
KR_EMU_UNSUPPORTED(__fdiv_rd)

// Conversions: rn is the CPU's default rounding (nearest even), rz truncates, rd/ru floor/ceil.
namespace kr_emu {
template <class I>
inline I to_int(double v) {  // the device saturates, and gives 0 for NaN
  if (v != v) return 0;
  if (v <= (double)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
  if (v >= (double)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
  return (I)v;
}
}  // namespace kr_emu
#define KR_CVT(T, suffix, I)                                                                        \
  inline I __##T##2##suffix##_rn(T v) { return kr_emu::to_int<I>(nearbyint((double)v)); }         \
  inline I __##T##2##suffix##_rz(T v) { return kr_emu::to_int<I>(trunc((double)v)); }              \
  inline I __##T##2##suffix##_rd(T v) { return kr_emu::to_int<I>(floor((double)v)); }              \
  inline I __##T##2##suffix##_ru(T v) { return kr_emu::to_int<I>(ceil((double)v)); }
KR_CVT(float, int, int)
KR_CVT(float, uint, unsigned)
KR_CVT(float, ll, long long)
KR_CVT(float, ull, unsigned long long)
KR_CVT(double, int, int)
KR_CVT(double, uint, unsigned)
KR_CVT(double, ll, long long)
KR_CVT(double, ull, unsigned long long)
#undef KR_CVT
inline float __int2float_rn(int v) { return (float)v; }
inline float __uint2float_rn(unsigned v) { return (float)v; }
inline float __ll2float_rn(long long v) { return (float)v; }
inline float __ull2float_rn(unsigned long long v) { return (float)v; }
inline double __int2double_rn(int v) { return (double)v; }
inline double __uint2double_rn(unsigned v) { return (double)v; }
inline double __ll2double_rn(long long v) { return (double)v; }
inline float __double2float_rn(double v) { return (float)v; }
inline float __float2float_rn(float v) { return v; }

// ---- Cache-hinted loads and stores ------------------------------------------------------------------------------

template <class T> inline T __ldg(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }
inline void __prefetch_global_l1(const void *) {}
inline void __prefetch_global_l2(const void *) {}

// ---- Asynchronous copies (cuda_pipeline primitives) ------------------------------------------------------------

inline void __pipeline_memcpy_async(void *dst, const void *src, size_t size, size_t zfill = 0) {
  kr_emu::copy_async(dst, src, size, zfill);
}
inline void __pipeline_commit() { kr_emu::copy_commit(); }
inline void __pipeline_wait_prior(size_t n) { kr_emu::copy_wait_prior(n); }
KR_EMU_UNSUPPORTED(__pipeline_arrive_on)

#endif
