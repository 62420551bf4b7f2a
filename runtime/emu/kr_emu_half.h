// runtime/emu/kr_emu_half.h: __half, __half2, __nv_bfloat16 and __nv_bfloat162 for the CPU
// emulator, as real 16-bit storage types. Conversions from float round to nearest even
// (subnormals, overflow to infinity and NaN included); arithmetic is done in float and rounded
// once, which is exactly the correctly rounded result for + - * / and sqrt (float carries more
// than 2p+2 bits for both formats). fma is computed in double (the product is exact there) and
// rounded to odd on the way to float, so only a sum rounded in double can differ, very rarely.
#ifndef KR_EMU_HALF_H
#define KR_EMU_HALF_H

namespace kr_emu {

inline float h2f(unsigned short h) {
  uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
  if (e == 0) {
    float f = (float)m * 0x1p-24f;  // zero or subnormal, exact
    u = bits<uint32_t>(f) | s;
  } else if (e == 31) {
    u = s | 0x7f800000u | (m << 13);
  } else {
    u = s | ((e + 112u) << 23) | (m << 13);
  }
  return bits<float>(u);
}

inline unsigned short f2h(float f) {
  uint32_t u = bits<uint32_t>(f);
  uint32_t s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (unsigned short)(s | 0x7e00u | ((a >> 13) & 0x3ffu));  // NaN, quiet
  if (a >= 0x477ff000u) return (unsigned short)(s | 0x7c00u);  // >= 65520 rounds to infinity
  uint32_t e = a >> 23;
  if (a < 0x38800000u) {  // below 2^-14: a subnormal half, or zero
    if (a < 0x33000000u) return (unsigned short)s;
    uint32_t m = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (unsigned short)(s | r);
  }
  uint32_t r = ((e - 112u) << 10) | ((a >> 13) & 0x3ffu), rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) r++;  // a carry may reach infinity: right
  return (unsigned short)(s | r);
}

inline float bf2f(unsigned short h) { return bits<float>((uint32_t)h << 16); }

inline unsigned short f2bf(float f) {
  uint32_t u = bits<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}

// double -> float rounded to odd, so that a second rounding to half or bfloat16 (far fewer
// bits than float's 24) gives the correctly rounded result of the double.
inline float d2f_odd(double d) {
  float f = (float)d;
  if (f != f || (double)f == d || std::isinf(f)) return f;
  if (std::fabs((double)f) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return bits<float>(bits<uint32_t>(f) | 1u);
}

}  // namespace kr_emu

struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x, y; };

// The two scalar types share one shape; F and T say how to convert.
#define KR_HALF_TYPE(H, RAW, TOF, FROMF)                                                              \
  struct __attribute__((aligned(2))) H {                                                             \
    unsigned short __x;                                                                              \
    H() = default;                                                                                   \
    constexpr H(const RAW &r) : __x(r.x) {}                                                          \
    H(float f) : __x(kr_emu::FROMF(f)) {}                                                            \
    H(double d) : __x(kr_emu::FROMF(kr_emu::d2f_odd(d))) {}                                          \
    template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>                              \
    H(I i) : __x(kr_emu::FROMF((float)i)) {}                                                         \
    operator float() const { return kr_emu::TOF(__x); }                                              \
    operator RAW() const { return RAW{__x}; }                                                        \
    H &operator=(const RAW &r) { __x = r.x; return *this; }                                          \
  };                                                                                                 \
  inline H operator+(const H &a, const H &b) { return H((float)a + (float)b); }                      \
  inline H operator-(const H &a, const H &b) { return H((float)a - (float)b); }                      \
  inline H operator*(const H &a, const H &b) { return H((float)a * (float)b); }                      \
  inline H operator/(const H &a, const H &b) { return H((float)a / (float)b); }                      \
  inline H operator-(const H &a) { H r = a; r.__x ^= 0x8000u; return r; }                          \
  inline H operator+(const H &a) { return a; }                                                       \
  inline H &operator+=(H &a, const H &b) { return a = a + b; }                                       \
  inline H &operator-=(H &a, const H &b) { return a = a - b; }                                       \
  inline H &operator*=(H &a, const H &b) { return a = a * b; }                                       \
  inline H &operator/=(H &a, const H &b) { return a = a / b; }                                       \
  inline H &operator++(H &a) { return a = a + H(1.0f); }                                             \
  inline H &operator--(H &a) { return a = a - H(1.0f); }                                             \
  inline H operator++(H &a, int) { H o = a; ++a; return o; }                                         \
  inline H operator--(H &a, int) { H o = a; --a; return o; }                                         \
  inline bool operator==(const H &a, const H &b) { return (float)a == (float)b; }                    \
  inline bool operator!=(const H &a, const H &b) { return (float)a != (float)b; }                    \
  inline bool operator<(const H &a, const H &b) { return (float)a < (float)b; }                      \
  inline bool operator>(const H &a, const H &b) { return (float)a > (float)b; }                      \
  inline bool operator<=(const H &a, const H &b) { return (float)a <= (float)b; }                    \
  inline bool operator>=(const H &a, const H &b) { return (float)a >= (float)b; }

KR_HALF_TYPE(__half, __half_raw, h2f, f2h)
KR_HALF_TYPE(__nv_bfloat16, __nv_bfloat16_raw, bf2f, f2bf)
#undef KR_HALF_TYPE

#define KR_HALF2_TYPE(H2, H, RAW2, RAW)                                                               \
  struct __attribute__((aligned(4))) H2 {                                                            \
    H x, y;                                                                                          \
    H2() = default;                                                                                  \
    constexpr H2(const H &a, const H &b) : x(a), y(b) {}                                             \
    constexpr H2(const RAW2 &r) : x(RAW{r.x}), y(RAW{r.y}) {}                                        \
    operator RAW2() const { return RAW2{x.__x, y.__x}; }                                             \
  };                                                                                                 \
  inline H2 operator+(const H2 &a, const H2 &b) { return H2(a.x + b.x, a.y + b.y); }                 \
  inline H2 operator-(const H2 &a, const H2 &b) { return H2(a.x - b.x, a.y - b.y); }                 \
  inline H2 operator*(const H2 &a, const H2 &b) { return H2(a.x * b.x, a.y * b.y); }                 \
  inline H2 operator/(const H2 &a, const H2 &b) { return H2(a.x / b.x, a.y / b.y); }                 \
  inline H2 operator-(const H2 &a) { return H2(-a.x, -a.y); }                                        \
  inline H2 &operator+=(H2 &a, const H2 &b) { return a = a + b; }                                    \
  inline H2 &operator-=(H2 &a, const H2 &b) { return a = a - b; }                                    \
  inline H2 &operator*=(H2 &a, const H2 &b) { return a = a * b; }                                    \
  inline H2 &operator/=(H2 &a, const H2 &b) { return a = a / b; }                                    \
  inline bool operator==(const H2 &a, const H2 &b) { return a.x == b.x && a.y == b.y; }              \
  inline bool operator!=(const H2 &a, const H2 &b) { return !(a == b); }

KR_HALF2_TYPE(__half2, __half, __half2_raw, __half_raw)
KR_HALF2_TYPE(__nv_bfloat162, __nv_bfloat16, __nv_bfloat162_raw, __nv_bfloat16_raw)
#undef KR_HALF2_TYPE

typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

// ---- Conversions ----------------------------------------------------------------------------------------------

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __double2half(double d) { return __half(d); }
inline float __half2float(__half h) { return (float)h; }
inline __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
inline __half2 __float22half2_rn(float2 f) { return __half2(__half(f.x), __half(f.y)); }
inline float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }
inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }
inline __half __int2half_rn(int i) { return __half((float)i); }
inline __half __uint2half_rn(unsigned i) { return __half((float)i); }
inline __half __short2half_rn(short i) { return __half((float)i); }
inline __half __ushort2half_rn(unsigned short i) { return __half((float)i); }
inline int __half2int_rz(__half h) { return kr_emu::to_int<int>(trunc((double)(float)h)); }
inline int __half2int_rn(__half h) { return kr_emu::to_int<int>(nearbyint((double)(float)h)); }
inline unsigned __half2uint_rz(__half h) { return kr_emu::to_int<unsigned>(trunc((double)(float)h)); }
inline short __half2short_rz(__half h) { return kr_emu::to_int<short>(trunc((double)(float)h)); }
inline short __half_as_short(__half h) { return (short)h.__x; }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __short_as_half(short s) { return __half(__half_raw{(unsigned short)s}); }
inline __half __ushort_as_half(unsigned short s) { return __half(__half_raw{s}); }

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
inline __nv_bfloat162 __float2bfloat162_rn(float f) { return __nv_bfloat162(__nv_bfloat16(f), __nv_bfloat16(f)); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b)); }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2((float)h.x, (float)h.y); }
inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16((float)i); }
inline int __bfloat162int_rz(__nv_bfloat16 h) { return kr_emu::to_int<int>(trunc((double)(float)h)); }
inline short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
inline __nv_bfloat16 __short_as_bfloat16(short s) { return __nv_bfloat16(__nv_bfloat16_raw{(unsigned short)s}); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short s) { return __nv_bfloat16(__nv_bfloat16_raw{s}); }
inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }

// ---- Arithmetic intrinsics, overloaded for both formats ------------------------------------------------------

#define KR_HALF_OPS(H, H2, LOW2)                                                                       \
  inline H __hadd(H a, H b) { return a + b; }                                                        \
  inline H __hsub(H a, H b) { return a - b; }                                                        \
  inline H __hmul(H a, H b) { return a * b; }                                                        \
  inline H __hdiv(H a, H b) { return a / b; }                                                        \
  inline H __hfma(H a, H b, H c) { return H(fma((double)(float)a, (double)(float)b, (double)(float)c)); } \
  inline H __hneg(H a) { return -a; }                                                                \
  inline H __habs(H a) { H r = a; r.__x &= 0x7fffu; return r; }                                     \
  inline H kr_sat(H a) { float f = (float)a; return H(f != f ? 0.0f : (f < 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f))); } \
  inline H __hadd_sat(H a, H b) { return kr_sat(a + b); }                                            \
  inline H __hsub_sat(H a, H b) { return kr_sat(a - b); }                                            \
  inline H __hmul_sat(H a, H b) { return kr_sat(a * b); }                                            \
  inline H __hfma_sat(H a, H b, H c) { return kr_sat(__hfma(a, b, c)); }                             \
  inline H __hfma_relu(H a, H b, H c) { H r = __hfma(a, b, c); return (float)r < 0.0f ? H(0.0f) : r; } \
  inline H __hmax(H a, H b) { return H(fmaxf((float)a, (float)b)); }                                 \
  inline H __hmin(H a, H b) { return H(fminf((float)a, (float)b)); }                                 \
  inline H __hmax_nan(H a, H b) { float x = a, y = b; return x != x ? a : (y != y ? b : (x > y ? a : b)); } \
  inline H __hmin_nan(H a, H b) { float x = a, y = b; return x != x ? a : (y != y ? b : (x < y ? a : b)); } \
  inline bool __heq(H a, H b) { return (float)a == (float)b; }                                       \
  inline bool __hne(H a, H b) { float x = a, y = b; return x == x && y == y && x != y; }             \
  inline bool __hlt(H a, H b) { return (float)a < (float)b; }                                        \
  inline bool __hle(H a, H b) { return (float)a <= (float)b; }                                       \
  inline bool __hgt(H a, H b) { return (float)a > (float)b; }                                        \
  inline bool __hge(H a, H b) { return (float)a >= (float)b; }                                       \
  inline bool __hequ(H a, H b) { return !((float)a != (float)b) || (float)a != (float)a || (float)b != (float)b; } \
  inline bool __hneu(H a, H b) { return (float)a != (float)b; }                                      \
  inline bool __hltu(H a, H b) { return !((float)a >= (float)b); }                                   \
  inline bool __hleu(H a, H b) { return !((float)a > (float)b); }                                    \
  inline bool __hgtu(H a, H b) { return !((float)a <= (float)b); }                                   \
  inline bool __hgeu(H a, H b) { return !((float)a < (float)b); }                                    \
  inline bool __hisnan(H a) { return (float)a != (float)a; }                                         \
  inline int __hisinf(H a) { float f = a; return std::isinf(f) ? (f < 0 ? -1 : 1) : 0; }            \
  inline H hsqrt(H a) { return H(sqrtf((float)a)); }                                                 \
  inline H hrsqrt(H a) { return H(1.0f / sqrtf((float)a)); }                                         \
  inline H hrcp(H a) { return H(1.0f / (float)a); }                                                  \
  inline H hexp(H a) { return H(expf((float)a)); }                                                   \
  inline H hexp2(H a) { return H(exp2f((float)a)); }                                                 \
  inline H hexp10(H a) { return H(exp10f((float)a)); }                                               \
  inline H hlog(H a) { return H(logf((float)a)); }                                                   \
  inline H hlog2(H a) { return H(log2f((float)a)); }                                                 \
  inline H hlog10(H a) { return H(log10f((float)a)); }                                               \
  inline H hsin(H a) { return H(sinf((float)a)); }                                                   \
  inline H hcos(H a) { return H(cosf((float)a)); }                                                   \
  inline H htanh(H a) { return H(tanhf((float)a)); }                                                 \
  inline H htrunc(H a) { return H(truncf((float)a)); }                                               \
  inline H hceil(H a) { return H(ceilf((float)a)); }                                                 \
  inline H hfloor(H a) { return H(floorf((float)a)); }                                               \
  inline H hrint(H a) { return H(nearbyintf((float)a)); }                                            \
  inline H2 __hadd2(H2 a, H2 b) { return a + b; }                                                    \
  inline H2 __hsub2(H2 a, H2 b) { return a - b; }                                                    \
  inline H2 __hmul2(H2 a, H2 b) { return a * b; }                                                    \
  inline H2 __h2div(H2 a, H2 b) { return a / b; }                                                    \
  inline H2 __hfma2(H2 a, H2 b, H2 c) { return H2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }   \
  inline H2 __hfma2_relu(H2 a, H2 b, H2 c) { return H2(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y)); } \
  inline H2 __hneg2(H2 a) { return -a; }                                                             \
  inline H2 __habs2(H2 a) { return H2(__habs(a.x), __habs(a.y)); }                                   \
  inline H2 __hadd2_sat(H2 a, H2 b) { return H2(__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)); }       \
  inline H2 __hsub2_sat(H2 a, H2 b) { return H2(__hsub_sat(a.x, b.x), __hsub_sat(a.y, b.y)); }       \
  inline H2 __hmul2_sat(H2 a, H2 b) { return H2(__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)); }       \
  inline H2 __hfma2_sat(H2 a, H2 b, H2 c) { return H2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)); } \
  inline H2 __hmax2(H2 a, H2 b) { return H2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }                   \
  inline H2 __hmin2(H2 a, H2 b) { return H2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }                   \
  inline H2 __heq2(H2 a, H2 b) { return H2(H(__heq(a.x, b.x) ? 1.0f : 0.0f), H(__heq(a.y, b.y) ? 1.0f : 0.0f)); } \
  inline H2 __hne2(H2 a, H2 b) { return H2(H(__hne(a.x, b.x) ? 1.0f : 0.0f), H(__hne(a.y, b.y) ? 1.0f : 0.0f)); } \
  inline H2 __hlt2(H2 a, H2 b) { return H2(H(__hlt(a.x, b.x) ? 1.0f : 0.0f), H(__hlt(a.y, b.y) ? 1.0f : 0.0f)); } \
  inline H2 __hle2(H2 a, H2 b) { return H2(H(__hle(a.x, b.x) ? 1.0f : 0.0f), H(__hle(a.y, b.y) ? 1.0f : 0.0f)); } \
  inline H2 __hgt2(H2 a, H2 b) { return H2(H(__hgt(a.x, b.x) ? 1.0f : 0.0f), H(__hgt(a.y, b.y) ? 1.0f : 0.0f)); } \
  inline H2 __hge2(H2 a, H2 b) { return H2(H(__hge(a.x, b.x) ? 1.0f : 0.0f), H(__hge(a.y, b.y) ? 1.0f : 0.0f)); } \
  inline bool __hbeq2(H2 a, H2 b) { return __heq(a.x, b.x) && __heq(a.y, b.y); }                    \
  inline bool __hbne2(H2 a, H2 b) { return __hne(a.x, b.x) && __hne(a.y, b.y); }                    \
  inline bool __hblt2(H2 a, H2 b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); }                    \
  inline bool __hble2(H2 a, H2 b) { return __hle(a.x, b.x) && __hle(a.y, b.y); }                    \
  inline bool __hbgt2(H2 a, H2 b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); }                    \
  inline bool __hbge2(H2 a, H2 b) { return __hge(a.x, b.x) && __hge(a.y, b.y); }                    \
  inline H2 __hisnan2(H2 a) { return H2(H(__hisnan(a.x) ? 1.0f : 0.0f), H(__hisnan(a.y) ? 1.0f : 0.0f)); } \
  inline H2 h2sqrt(H2 a) { return H2(hsqrt(a.x), hsqrt(a.y)); }                                      \
  inline H2 h2rsqrt(H2 a) { return H2(hrsqrt(a.x), hrsqrt(a.y)); }                                   \
  inline H2 h2rcp(H2 a) { return H2(hrcp(a.x), hrcp(a.y)); }                                         \
  inline H2 h2exp(H2 a) { return H2(hexp(a.x), hexp(a.y)); }                                         \
  inline H2 h2exp2(H2 a) { return H2(hexp2(a.x), hexp2(a.y)); }                                      \
  inline H2 h2log(H2 a) { return H2(hlog(a.x), hlog(a.y)); }                                         \
  inline H2 h2log2(H2 a) { return H2(hlog2(a.x), hlog2(a.y)); }                                      \
  inline H2 h2sin(H2 a) { return H2(hsin(a.x), hsin(a.y)); }                                         \
  inline H2 h2cos(H2 a) { return H2(hcos(a.x), hcos(a.y)); }                                         \
  inline H2 h2trunc(H2 a) { return H2(htrunc(a.x), htrunc(a.y)); }                                   \
  inline H2 h2floor(H2 a) { return H2(hfloor(a.x), hfloor(a.y)); }                                   \
  inline H2 h2ceil(H2 a) { return H2(hceil(a.x), hceil(a.y)); }                                      \
  inline float __low2float(H2 a) { return (float)a.x; }                                              \
  inline float __high2float(H2 a) { return (float)a.y; }                                             \
  inline H __low2##LOW2(H2 a) { return a.x; }                                                        \
  inline H __high2##LOW2(H2 a) { return a.y; }                                                       \
  inline H2 __low2##LOW2##2(H2 a) { return H2(a.x, a.x); }                                           \
  inline H2 __high2##LOW2##2(H2 a) { return H2(a.y, a.y); }                                          \
  inline H2 __lows2##LOW2##2(H2 a, H2 b) { return H2(a.x, b.x); }                                    \
  inline H2 __highs2##LOW2##2(H2 a, H2 b) { return H2(a.y, b.y); }                                   \
  inline H2 __halves2##LOW2##2(H a, H b) { return H2(a, b); }                                        \
  inline H2 __##LOW2##2##LOW2##2(H a) { return H2(a, a); }                                           \
  inline H2 __lowhigh2highlow(H2 a) { return H2(a.y, a.x); }                                         \
  KR_EMU_NOSAN inline H atomicAdd(H *p, H v) {                                                        \
    kr_emu::check_atomic(p, sizeof(H), __builtin_return_address(0));                                  \
    H o = *p;                                                                                          \
    *p = o + v;                                                                                        \
    return o;                                                                                          \
  }                                                                                                    \
  KR_EMU_NOSAN inline H2 atomicAdd(H2 *p, H2 v) {                                                      \
    kr_emu::check_atomic(p, sizeof(H2), __builtin_return_address(0));                                 \
    H2 o = *p;                                                                                         \
    *p = o + v;                                                                                        \
    return o;                                                                                          \
  }

KR_HALF_OPS(__half, __half2, half)
KR_HALF_OPS(__nv_bfloat16, __nv_bfloat162, bfloat16)
#undef KR_HALF_OPS

#endif
