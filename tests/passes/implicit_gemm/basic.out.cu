// A direct NCHW convolution with stride and zero padding (the padding test around the update).
#include <cuda_runtime.h>

// krewrite implicit_gemm: x / d and x % d for 0 <= x < 2^31 and a run-time d >= 1, as a multiply-high, an add and
// a shift (Granlund and Montgomery): mul = 2^32 * (2^shift - d) / d + 1 with 2^shift the least power of two >= d
struct kr_fastdiv {
  unsigned mul, shift;
  int d;
};

static __device__ __forceinline__ kr_fastdiv kr_fastdiv_of(int d) {
  kr_fastdiv f;
  f.d = d;
  f.shift = 32 - __clz(d - 1);
  f.mul = (unsigned)(((1ull << 32) * ((1ull << f.shift) - (unsigned long long)d)) / (unsigned long long)d + 1);
  return f;
}

static __device__ __forceinline__ int kr_div(int x, kr_fastdiv f) {
  return (int)((__umulhi((unsigned)x, f.mul) + (unsigned)x) >> f.shift);
}

static __device__ __forceinline__ int kr_mod(int x, kr_fastdiv f) { return x - kr_div(x, f) * f.d; }

__global__ void __launch_bounds__(256, 3) conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, float *x, float *w, float *b, float *y) {
  // krewrite tile: 64 x 64 outputs of (n, k) per block, k tiles of 16; staged in shared memory: x, w
  // krewrite register_tile: 4 x 4 outputs per thread, an outer product in registers
  constexpr int BM = 64, BN = 64, BK = 16;
  constexpr int TM = 4, TN = 4;
  constexpr int NT = (BM / TM) * (BN / TN);
  // krewrite implicit_gemm: the groups' run-time divisors, each division a multiply and a shift (the multipliers computed once per block, a divisor a thread)
  __shared__ kr_fastdiv kr_divs[6];
  for (int de = threadIdx.x; de < 6; de += blockDim.x) kr_divs[de] = kr_fastdiv_of(de == 0 ? ((P) * (Q)) : de == 1 ? (Q) : de == 2 ? (P) : de == 3 ? ((R) * (S)) : de == 4 ? (S) : (R));
  __syncthreads();
  const kr_fastdiv div = kr_divs[0];
  const kr_fastdiv div_1 = kr_divs[1];
  const kr_fastdiv div_2 = kr_divs[2];
  const kr_fastdiv div_3 = kr_divs[3];
  const kr_fastdiv div_4 = kr_divs[4];
  const kr_fastdiv div_5 = kr_divs[5];
  __shared__ __align__(16) float x_tile[BK][BM + 4];
  __shared__ __align__(16) float w_tile[BK][BN + 4];
  // krewrite implicit_gemm: the index table, the k parts of a k tile's indices (two slots)
  __shared__ __align__(16) int ktab[2][BK][4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  // krewrite implicit_gemm: the axes of this thread's row of the x tile, the same in every load
  const int x_row = m0 + tid % BM;
  const int x_n = kr_div(x_row, div);
  const int x_p = kr_mod(kr_div(x_row, div_1), div_2);
  const int x_q = kr_mod(x_row, div_1);
  const int x_base = -pad - W * pad + stride * (x_q) + W * stride * (x_p) + C * H * W * (x_n);
  bool x_in;
  {
    const int q = x_q;
    const int p = x_p;
    const int n = x_n;
    x_in = q < Q && p < P && n < ((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K)) && q < Q && p < P;
  }
  const int x_cond = -pad + stride * (x_p);
  const int x_cond_1 = -1 + H + pad - stride * (x_p);
  const int x_cond_2 = -pad + stride * (x_q);
  const int x_cond_3 = -1 + W + pad - stride * (x_q);
  const long long x_span = (long long)x_cond + x_cond_1;
  x_in = x_in && x_span >= 0;
  const long long x_span_1 = (long long)x_cond_2 + x_cond_3;
  x_in = x_in && x_span_1 >= 0;
  float acc[TM][TN];
  #pragma unroll
  for (int i = 0; i < TM; i++)
    #pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = (float)0;
  // krewrite implicit_gemm: the k parts of the indices for the k tile at 0
  for (int te = tid; te < BK; te += NT) {
    const int c = kr_div(0 + te, div_3);
    const int r = kr_mod(kr_div(0 + te, div_4), div_5);
    const int s = kr_mod(0 + te, div_4);
    ktab[0][te][0] = H * W * c + W * r + s;
    ktab[0][te][1] = r;
    ktab[0][te][2] = s;
  }
  __syncthreads();
  for (int k0 = 0; k0 < (C) * (R) * (S); k0 += BK) {
    const int slot = ((k0 - (0)) / BK) & 1;
    // krewrite tile: the k tile of the staged operands, loaded cooperatively
    #pragma unroll
    for (int it = 0; it < (BM * BK) / NT; it++) {
      const int mm = tid % BM, kk = tid / BM + it * 4;
      const int4 tv = *reinterpret_cast<const int4 *>(&ktab[slot][kk][0]);
      x_tile[kk][mm] = (x_in && k0 + kk < (C) * (R) * (S) && (unsigned)(x_cond + tv.y) <= (unsigned)x_span && (unsigned)(x_cond_2 + tv.z) <= (unsigned)x_span_1) ? x[x_base + tv.x] : (float)0;
    }
    #pragma unroll
    for (int it = 0; it < (BN * BK) / NT; it++) {
      const int mm = tid / BK + it * 16, kk = tid % BK;
      const int k = n0 + mm;
      w_tile[kk][mm] = (k < K && k < K && k0 + kk < (C) * (R) * (S)) ? w[C * R * S * k + (k0 + kk)] : (float)0;
    }
    // krewrite implicit_gemm: the k parts of the indices for the k tile at k0 + BK
    for (int te_1 = tid; te_1 < BK; te_1 += NT) {
      const int c = kr_div(k0 + BK + te_1, div_3);
      const int r = kr_mod(kr_div(k0 + BK + te_1, div_4), div_5);
      const int s = kr_mod(k0 + BK + te_1, div_4);
      ktab[slot ^ 1][te_1][0] = H * W * c + W * r + s;
      ktab[slot ^ 1][te_1][1] = r;
      ktab[slot ^ 1][te_1][2] = s;
    }
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      float x_reg[TM];
      #pragma unroll
      for (int i = 0; i < TM; i++) x_reg[i] = x_tile[kk][tm0 + i];
      float w_reg[TN];
      #pragma unroll
      for (int j = 0; j < TN; j++) w_reg[j] = w_tile[kk][tn0 + j];
      #pragma unroll
      for (int i = 0; i < TM; i++) {
        #pragma unroll
        for (int j = 0; j < TN; j++) {
          acc[i][j] += x_reg[i] * w_reg[j];
        }
      }
    }
    __syncthreads();
  }
  // krewrite tile: each thread's outputs, under the kernel's own guard
  #pragma unroll
  for (int i = 0; i < TM; i++) {
    #pragma unroll
    for (int j = 0; j < TN; j++) {
      const int q = kr_mod(m0 + tm0 + i, div_1);
      const int p = kr_mod(kr_div(m0 + tm0 + i, div_1), div_2);
      const int k = n0 + tn0 + j;
      const int n = kr_div(m0 + tm0 + i, div);
      const int idx = n * ((Q * P * K)) + p * (Q) + k * ((Q * P)) + q;
      if (idx < N * K * P * Q && q < Q && p < P && k < K) {
        float sum = b[k];
        sum += acc[i][j];
        y[idx] = sum;
      }
    }
  }
}
