// runtime/emu/kr_emu_wmma.h: nvcuda::wmma for the CPU emulator. On the device a fragment is spread
// over the 32 lanes of a warp in an unspecified layout; here every lane holds the whole tile and
// the lanes of a warp compute identically, so load/mma/store give the device's results for code
// that treats fragments as opaque, and element-wise loops over x[0..num_elements) (the same
// operation on every element) work too. Code that assumes which elements a lane holds is not
// portable on the device either and is not emulated. Products accumulate in float, each product's
// sum rounded toward zero as the tensor cores do (kr_emu::tc_round; double for double, int for the
// integer types); tf32 operands drop their low 13 mantissa bits as the tensor cores do.
#ifndef KR_EMU_WMMA_H
#define KR_EMU_WMMA_H

namespace kr_emu {

// The tensor cores' fp32 sum of one instruction (WMMA, mma.sync, wgmma): the products, exact, added to
// the accumulator, the result rounded toward zero. The tensor cores truncate as they accumulate (Fasi,
// Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor cores", 2021; Khattak and
// Mikaitis, "Accurate models of NVIDIA tensor cores", 2025, H100 among them), so a long chain of
// products into one accumulator drifts toward zero, as it does on the GPU (bench/results/
// tensor-2026-12-03c.json). The sum is formed in double, exact for one instruction's few products in
// practice; the hardware's alignment of the smaller terms to the largest is not modelled.
KR_EMU_NOSAN inline float tc_round(double s) {
  float f = (float)s;
  if (std::isfinite(f) && std::fabs((double)f) > std::fabs(s)) f = std::nextafter(f, 0.0f);
  return f;
}

}  // namespace kr_emu

namespace nvcuda {
namespace wmma {

struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
enum layout_t { mem_row_major, mem_col_major };

namespace precision {
struct tf32 {};
struct s4 {};
struct u4 {};
struct b1 {};
}  // namespace precision
namespace experimental {
namespace precision = ::nvcuda::wmma::precision;
}

template <class Use, int M, int N, int K> struct kr_shape;
template <int M, int N, int K> struct kr_shape<matrix_a, M, N, K> { static constexpr int rows = M, cols = K; };
template <int M, int N, int K> struct kr_shape<matrix_b, M, N, K> { static constexpr int rows = K, cols = N; };
template <int M, int N, int K> struct kr_shape<accumulator, M, N, K> { static constexpr int rows = M, cols = N; };

template <class T> struct kr_storage { using type = T; };
template <> struct kr_storage<precision::tf32> { using type = float; };

template <class T>
struct kr_acc {
  using type = std::conditional_t<std::is_same_v<T, double>, double,
                                  std::conditional_t<std::is_integral_v<T>, int, float>>;
};

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
  static_assert(!std::is_same_v<T, precision::s4> && !std::is_same_v<T, precision::u4> &&
                    !std::is_same_v<T, precision::b1>,
                "sub-byte WMMA types are not supported by the krewrite CPU emulator");
  using element_type = typename kr_storage<T>::type;
  using storage_element_type = element_type;
  static constexpr int kr_rows = kr_shape<Use, M, N, K>::rows;
  static constexpr int kr_cols = kr_shape<Use, M, N, K>::cols;
  enum { num_elements = kr_rows * kr_cols };
  element_type x[num_elements];
};

// cvt.rna.tf32.f32: round to nearest, ties away, to a 10-bit mantissa (overflowing to infinity).
// Infinities and NaNs just lose the low 13 bits, as on an H200 (a NaN whose payload is all there
// becomes an infinity).
inline float __float_to_tf32(float f) {
  uint32_t u = kr_emu::bits<uint32_t>(f);
  if ((u & 0x7f800000u) != 0x7f800000u) u += 0x1000u;
  return kr_emu::bits<float>(u & 0xffffe000u);
}

template <class Use, int M, int N, int K, class T, class L, class V>
KR_EMU_NOSAN inline void fill_fragment(fragment<Use, M, N, K, T, L> &f, const V &v) {
  using E = typename fragment<Use, M, N, K, T, L>::element_type;
  for (int i = 0; i < f.num_elements; i++) f.x[i] = E(v);
}

template <class Frag, class P>
inline void kr_load(Frag &f, const P *p, unsigned ldm, bool row) {
  using E = typename Frag::element_type;
  for (int r = 0; r < Frag::kr_rows; r++)
    for (int c = 0; c < Frag::kr_cols; c++)
      f.x[r * Frag::kr_cols + c] = E(row ? p[(size_t)r * ldm + c] : p[(size_t)c * ldm + r]);
}

// A warp's load: its first live lane reads the tile (the reads the memory checker sees, one per
// element as the device's one warp-wide load makes them) and hands it to the other lanes through its
// buffer; the lanes meet before (the buffer is free) and after (it is full).
template <class Frag, class P>
KR_EMU_NOSAN inline void kr_warp_load(Frag &f, const P *p, unsigned ldm, bool row) {
  static_assert(sizeof f.x <= kr_emu::kMmaBytes, "a WMMA fragment larger than the emulator's warp buffer");
  if (!kr_emu::S.cur) {
    kr_load(f, p, ldm, row);
    return;
  }
  uint32_t live = kr_emu::live_lanes();
  unsigned char *buf = kr_emu::mma_buffer();
  __syncwarp(live);
  if (kr_emu::S.cur->lane == (uint32_t)__builtin_ctz(live)) {
    kr_load(f, p, ldm, row);
    memcpy(buf, f.x, sizeof f.x);
  }
  __syncwarp(live);
  memcpy(f.x, buf, sizeof f.x);
}

template <class Use, int M, int N, int K, class T, class L, class P>
inline void load_matrix_sync(fragment<Use, M, N, K, T, L> &f, const P *p, unsigned ldm) {
  static_assert(!std::is_void_v<L>, "an accumulator fragment is loaded with a layout_t argument");
  kr_warp_load(f, p, ldm, std::is_same_v<L, row_major>);
}

template <int M, int N, int K, class T, class P>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const P *p, unsigned ldm,
                             layout_t layout) {
  kr_warp_load(f, p, ldm, layout == mem_row_major);
}

// Every lane holds the whole tile, so one lane stores it, between two rendezvous of the warp's
// live lanes: the device's store is one warp-wide operation, and 32 lanes writing the same
// elements would be a data race to the memory checker.
template <int M, int N, int K, class T, class P>
inline void store_matrix_sync(P *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm,
                              layout_t layout) {
  uint32_t live = kr_emu::live_lanes();
  __syncwarp(live);
  if (kr_emu::S.cur && kr_emu::S.cur->lane != (uint32_t)__builtin_ctz(live)) {
    __syncwarp(live);
    return;
  }
  for (int r = 0; r < M; r++)
    for (int c = 0; c < N; c++) {
      P v = P(f.x[r * N + c]);
      if (layout == mem_row_major) p[(size_t)r * ldm + c] = v;
      else p[(size_t)c * ldm + r] = v;
    }
  __syncwarp(live);
}

template <class T, class E>
KR_EMU_NOSAN inline auto kr_operand(const E &e) {
  using A = typename kr_acc<T>::type;
  if constexpr (std::is_same_v<T, precision::tf32>)
    return A(kr_emu::bits<float>(kr_emu::bits<uint32_t>((float)e) & 0xffffe000u));
  else
    return A(e);
}

template <int M, int N, int K, class Ta, class La, class Tb, class Lb, class Tc>
KR_EMU_NOSAN inline void kr_mma(typename fragment<accumulator, M, N, K, Tc>::element_type *out,
                   const fragment<matrix_a, M, N, K, Ta, La> &a, const fragment<matrix_b, M, N, K, Tb, Lb> &b,
                   const fragment<accumulator, M, N, K, Tc> &c, bool satf) {
  using A = typename kr_acc<Ta>::type;
  using E = typename fragment<accumulator, M, N, K, Tc>::element_type;
  A bt[K * N];   // b's operands once, converted
  for (int i = 0; i < K * N; i++) bt[i] = kr_operand<Tb>(b.x[i]);
  for (int i = 0; i < M; i++) {
    A at[K];
    for (int k = 0; k < K; k++) at[k] = kr_operand<Ta>(a.x[i * K + k]);
    for (int j = 0; j < N; j++) {
      A s = A(c.x[i * N + j]);
      if constexpr (std::is_same_v<A, float>) {   // the tensor cores' truncating sum (kr_emu::tc_round)
        double t = s;
        for (int k = 0; k < K; k++) t += (double)(at[k] * bt[k * N + j]);
        s = kr_emu::tc_round(t);
      } else {
        for (int k = 0; k < K; k++) s += at[k] * bt[k * N + j];
      }
      if (satf && std::is_floating_point_v<A>) s = s != s ? A(0) : (s < A(0) ? A(0) : (s > A(1) ? A(1) : s));
      out[i * N + j] = E(s);
    }
  }
}

// The lanes of a warp hold the same fragments, so the warp's first live lane computes the product
// once, into a buffer of the warp, and every lane copies it: the lanes meet before (their inputs
// are ready, the previous product was copied by all) and after (the product is ready). Outside a
// kernel launch (a host test) the one caller computes it directly.
template <int M, int N, int K, class Ta, class La, class Tb, class Lb, class Tc>
KR_EMU_NOSAN inline void mma_sync(fragment<accumulator, M, N, K, Tc> &d,
                     const fragment<matrix_a, M, N, K, Ta, La> &a,
                     const fragment<matrix_b, M, N, K, Tb, Lb> &b,
                     const fragment<accumulator, M, N, K, Tc> &c, bool satf = false) {
  using E = typename fragment<accumulator, M, N, K, Tc>::element_type;
  if (!kr_emu::S.cur) {
    E out[M * N];
    kr_mma(out, a, b, c, satf);
    for (int i = 0; i < M * N; i++) d.x[i] = out[i];
    return;
  }
  static_assert(sizeof(E) * M * N <= kr_emu::kMmaBytes, "a WMMA accumulator larger than the emulator's warp buffer");
  uint32_t live = kr_emu::live_lanes();
  E *out = reinterpret_cast<E *>(kr_emu::mma_buffer());
  __syncwarp(live);
  if (kr_emu::S.cur->lane == (uint32_t)__builtin_ctz(live)) kr_mma(out, a, b, c, satf);
  __syncwarp(live);
  for (int i = 0; i < M * N; i++) d.x[i] = out[i];
}

}  // namespace wmma
}  // namespace nvcuda

#endif
