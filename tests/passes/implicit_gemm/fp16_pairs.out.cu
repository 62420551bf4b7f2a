#include <cuda_fp16.h>
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

// krewrite tensor_core: d += a * b on the tensor cores, one 16 x 8 x 16 product of a warp (PTX mma.sync)
static __device__ __forceinline__ void kr_mma_f16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// krewrite tensor_core: 2 8 x 8 blocks of 16-bit elements from shared memory, lane l giving the address of row l % 8 of block l / 8 (PTX ldmatrix)
static __device__ __forceinline__ void kr_ldmatrix_x2(unsigned (&r)[2], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
    : "=r"(r[0]), "=r"(r[1])
    : "l"(__cvta_generic_to_shared(row)));
}

// krewrite tensor_core: 4 8 x 8 blocks of 16-bit elements from shared memory, transposed, lane l giving the address of row l % 8 of block l / 8 (PTX ldmatrix)
static __device__ __forceinline__ void kr_ldmatrix_x4_trans(unsigned (&r)[4], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
    : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
    : "l"(__cvta_generic_to_shared(row)));
}

__global__ void __launch_bounds__(128, 2) conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, float *x, float *w, float *b, float *y) {
  // krewrite tile: 128 x 64 outputs of (n, k) per block, k tiles of 32; staged in shared memory: x, w
  // krewrite tensor_core: fp16 on the tensor cores (mma.sync 16 x 8 x 16), a 64 x 32 tile per warp
  constexpr int BM = 128, BN = 64, BK = 32;
  constexpr int TM = 16, TN = 4;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 64, WN = 32, MM = 16, MN = 8, MK = 16;
  constexpr int FM = WM / MM, FN = WN / MN;
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
  // krewrite tile: the tiles in 13824 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(128) unsigned char smem[];
  __half (*x_tile)[BM + 8] = reinterpret_cast<__half (*)[BM + 8]>(smem + 0);
  __half (*w_tile)[BK + 8] = reinterpret_cast<__half (*)[BK + 8]>(smem + 8704);
  // krewrite implicit_gemm: the index table, the k parts of a k tile's indices (two slots)
  __shared__ __align__(16) int ktab[2][BK][4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite implicit_gemm: the axes of this thread's rows (two, converted and stored as a pair) of the x tile, the same in every load
  const int x_row = m0 + (tid % (BM / 2)) * 2;
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
  const int x_n_1 = kr_div(x_row + 1, div);
  const int x_p_1 = kr_mod(kr_div(x_row + 1, div_1), div_2);
  const int x_q_1 = kr_mod(x_row + 1, div_1);
  const int x_base_1 = -pad - W * pad + stride * (x_q_1) + W * stride * (x_p_1) + C * H * W * (x_n_1);
  bool x_in_1;
  {
    const int q = x_q_1;
    const int p = x_p_1;
    const int n = x_n_1;
    x_in_1 = q < Q && p < P && n < ((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K)) && q < Q && p < P;
  }
  const int x_cond_4 = -pad + stride * (x_p_1);
  const int x_cond_5 = -1 + H + pad - stride * (x_p_1);
  const int x_cond_6 = -pad + stride * (x_q_1);
  const int x_cond_7 = -1 + W + pad - stride * (x_q_1);
  // krewrite tensor_core: warp w computes the WM x WN outputs at (wm0, wn0) as FM x FN products of 16 x 8, k steps of MK (fp16, PTX mma.sync)
  const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  float c_frag[FM][FN][4];
  #pragma unroll
  for (int i = 0; i < FM; i++)
    #pragma unroll
    for (int j = 0; j < FN; j++)
      #pragma unroll
      for (int v = 0; v < 4; v++) c_frag[i][j][v] = 0.0f;
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
    for (int it = 0; it < ((BM / 2) * BK) / NT; it++) {
      const int mm = (tid % (BM / 2)) * 2, kk = tid / (BM / 2) + it * 2;
      const float lo = (x_in && k0 + kk < (C) * (R) * (S) && x_cond + ktab[slot][kk][1] >= 0 && x_cond_1 - ktab[slot][kk][1] >= 0 && x_cond_2 + ktab[slot][kk][2] >= 0 && x_cond_3 - ktab[slot][kk][2] >= 0) ? x[x_base + ktab[slot][kk][0]] : 0.0f;
      const float hi = (x_in_1 && k0 + kk < (C) * (R) * (S) && x_cond_4 + ktab[slot][kk][1] >= 0 && x_cond_5 - ktab[slot][kk][1] >= 0 && x_cond_6 + ktab[slot][kk][2] >= 0 && x_cond_7 - ktab[slot][kk][2] >= 0) ? x[x_base_1 + ktab[slot][kk][0]] : 0.0f;
      *reinterpret_cast<__half2 *>(&x_tile[kk][mm]) = __floats2half2_rn(lo, hi);
    }
    #pragma unroll
    for (int it = 0; it < (BN * BK) / NT; it++) {
      const int mm = tid / BK + it * 4, kk = tid % BK;
      const int k = n0 + mm;
      w_tile[mm][kk] = (k < K && k < K && k0 + kk < (C) * (R) * (S)) ? w[C * R * S * k + (k0 + kk)] : (float)0;
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
    for (int kk = 0; kk < BK; kk += MK) {
      unsigned a_frag[FM][4], b_frag[FN][2];
      #pragma unroll
      for (int i = 0; i < FM; i++) {
        kr_ldmatrix_x4_trans(a_frag[i], &x_tile[kk + (lane / 16) * 8 + lane % 8][wm0 + i * 16 + (lane / 8 % 2) * 8]);
      }
      #pragma unroll
      for (int j = 0; j < FN; j++) {
        kr_ldmatrix_x2(b_frag[j], &w_tile[wn0 + j * 8 + lane % 8][kk + (lane / 8 % 2) * 8]);
      }
      #pragma unroll
      for (int i = 0; i < FM; i++) {
        #pragma unroll
        for (int j = 0; j < FN; j++) {
          kr_mma_f16(c_frag[i][j], a_frag[i], b_frag[j]);
        }
      }
    }
    __syncthreads();
  }
  // krewrite tensor_core: each thread's outputs from its accumulators (rows g and g + 8, columns 2 * t and 2 * t + 1 of each product), under the kernel's own guard
  #pragma unroll
  for (int i = 0; i < FM; i++) {
    #pragma unroll
    for (int j = 0; j < FN; j++) {
      #pragma unroll
      for (int v = 0; v < 4; v++) {
        const int q = kr_mod(m0 + wm0 + i * 16 + g + (v / 2) * 8, div_1);
        const int p = kr_mod(kr_div(m0 + wm0 + i * 16 + g + (v / 2) * 8, div_1), div_2);
        const int k = n0 + wn0 + j * 8 + t * 2 + v % 2;
        const int n = kr_div(m0 + wm0 + i * 16 + g + (v / 2) * 8, div);
        const int idx = n * ((Q * P * K)) + p * (Q) + k * ((Q * P)) + q;
        if (idx < N * K * P * Q && q < Q && p < P && k < K) {
          float sum = b[k];
          sum += c_frag[i][j][v];
          y[idx] = sum;
        }
      }
    }
  }
}
