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
inline void __nanosleep(unsigned) {}
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
// The fast approximations (__expf, __sinf, …) are computed with the accurate functions here; on
// the device they are less accurate, which the tolerance of a precision-lowering pass covers.
// __fdividef keeps the device's documented special case for huge divisors.

inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float *s, float *c) { sincosf(x, s, c); }
inline float __powf(float x, float y) { return powf(x, y); }
// As the device's: 0 (NaN for an infinite a) when 2^126 < |b| < 2^128, else a / b.
inline float __fdividef(float a, float b) {
  float m = b < 0 ? -b : b;
  if (m > 0x1p126f && m <= FLT_MAX) return std::isinf(a) ? NAN : 0.0f;
  return a / b;
}
inline float fdividef(float a, float b) { return __fdividef(a, b); }
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
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
