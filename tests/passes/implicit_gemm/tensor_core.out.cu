#include <cuda_pipeline.h>
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

// krewrite tensor_core: d += a * b on the tensor cores, one 16 x 8 x 8 product of a warp (PTX mma.sync)
static __device__ __forceinline__ void kr_mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// krewrite tensor_core: 2 8 x 8 blocks of 16-bit elements from shared memory, lane l giving the address of row l % 8 of block l / 8 (PTX ldmatrix)
static __device__ __forceinline__ void kr_ldmatrix_x2(unsigned (&r)[2], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
    : "=r"(r[0]), "=r"(r[1])
    : "l"(__cvta_generic_to_shared(row)));
}

// krewrite tensor_core: x rounded to tf32, to nearest with ties away from zero (PTX cvt.rna.tf32.f32)
static __device__ __forceinline__ unsigned kr_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

__global__ void __launch_bounds__(128, 2) conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, float *x, float *w, float *b, float *y) {
  // krewrite tile: 128 x 64 outputs of (n, k) per block, k tiles of 32; staged in shared memory: x, w
  // krewrite tensor_core: tf32 on the tensor cores (mma.sync 16 x 8 x 8), a 64 x 32 tile per warp
  // krewrite double_buffer: 3 shared-memory stages filled by cp.async
  constexpr int BM = 128, BN = 64, BK = 32;
  constexpr int TM = 16, TN = 4, STAGES = 3;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 64, WN = 32, MM = 16, MN = 8, MK = 8;
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
  // krewrite tile: the tiles in 79872 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(128) unsigned char smem[];
  float (*x_tile)[BK][BM + 8] = reinterpret_cast<float (*)[BK][BM + 8]>(smem + 0);
  float (*w_tile)[BN][BK + 4] = reinterpret_cast<float (*)[BN][BK + 4]>(smem + 52224);
  // krewrite implicit_gemm: the index table, the k parts of a k tile's indices (two slots)
  __shared__ __align__(16) int ktab[2][BK][4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
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
  // krewrite tensor_core: warp w computes the WM x WN outputs at (wm0, wn0) as FM x FN products of 16 x 8, k steps of MK (tf32, PTX mma.sync)
  const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  float c_frag[FM][FN][4];
  #pragma unroll
  for (int i = 0; i < FM; i++)
    #pragma unroll
    for (int j = 0; j < FN; j++)
      #pragma unroll
      for (int v = 0; v < 4; v++) c_frag[i][j][v] = 0.0f;
  const int ntiles = (((C) * (R) * (S)) - (0) + BK - 1) / BK;
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
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (0) + kt * BK;
      #pragma unroll
      for (int it = 0; it < (BM * BK) / NT; it++) {
        const int mm = tid % BM, kk = tid / BM + it * 1;
        const int4 tv = *reinterpret_cast<const int4 *>(&ktab[kt & 1][kk][0]);
        const bool in = x_in && k0 + kk < (C) * (R) * (S) && (unsigned)(x_cond + tv.y) <= (unsigned)x_span && (unsigned)(x_cond_2 + tv.z) <= (unsigned)x_span_1;
        __pipeline_memcpy_async(&x_tile[kt % STAGES][kk][mm], &x[in ? x_base + tv.x : 0], sizeof(float), in ? 0 : sizeof(float));
      }
      #pragma unroll
      for (int it = 0; it < (BN * BK) / NT; it++) {
        const int mm = tid / BK + it * 4, kk = tid % BK;
        const int k = n0 + mm;
        const bool in_1 = k < K && k < K && k0 + kk < (C) * (R) * (S);
        __pipeline_memcpy_async(&w_tile[kt % STAGES][mm][kk], &w[in_1 ? C * R * S * k + (k0 + kk) : 0], sizeof(float), in_1 ? 0 : sizeof(float));
      }
    }
    // krewrite implicit_gemm: the k parts of the indices for the k tile at (0) + (kt + 1) * BK
    for (int te_1 = tid; te_1 < BK; te_1 += NT) {
      const int c = kr_div((0) + (kt + 1) * BK + te_1, div_3);
      const int r = kr_mod(kr_div((0) + (kt + 1) * BK + te_1, div_4), div_5);
      const int s = kr_mod((0) + (kt + 1) * BK + te_1, div_4);
      ktab[(kt + 1) & 1][te_1][0] = H * W * c + W * r + s;
      ktab[(kt + 1) & 1][te_1][1] = r;
      ktab[(kt + 1) & 1][te_1][2] = s;
    }
    __syncthreads();
    __pipeline_commit();
  }
  for (int kt = 0; kt < ntiles; kt++) {
    {
      // krewrite double_buffer: start the loads of tile kt + STAGES - 1
      const int e = kt + STAGES - 1;
      if (e < ntiles) {
        #pragma unroll
        for (int it = 0; it < (BM * BK) / NT; it++) {
          const int mm = tid % BM, kk = tid / BM + it * 1;
          const int4 tv_1 = *reinterpret_cast<const int4 *>(&ktab[(kt + STAGES - 1) & 1][kk][0]);
          const bool in_2 = x_in && ((0) + (kt + STAGES - 1) * BK) + kk < (C) * (R) * (S) && (unsigned)(x_cond + tv_1.y) <= (unsigned)x_span && (unsigned)(x_cond_2 + tv_1.z) <= (unsigned)x_span_1;
          __pipeline_memcpy_async(&x_tile[(kt + STAGES - 1) % STAGES][kk][mm], &x[in_2 ? x_base + tv_1.x : 0], sizeof(float), in_2 ? 0 : sizeof(float));
        }
        #pragma unroll
        for (int it = 0; it < (BN * BK) / NT; it++) {
          const int mm = tid / BK + it * 4, kk = tid % BK;
          const int k = n0 + mm;
          const bool in_3 = k < K && k < K && ((0) + (kt + STAGES - 1) * BK) + kk < (C) * (R) * (S);
          __pipeline_memcpy_async(&w_tile[(kt + STAGES - 1) % STAGES][mm][kk], &w[in_3 ? C * R * S * k + (((0) + (kt + STAGES - 1) * BK) + kk) : 0], sizeof(float), in_3 ? 0 : sizeof(float));
        }
      }
      // krewrite implicit_gemm: the k parts of the indices for the k tile at ((0) + (kt + STAGES) * BK)
      for (int te_2 = tid; te_2 < BK; te_2 += NT) {
        const int c = kr_div(((0) + (kt + STAGES) * BK) + te_2, div_3);
        const int r = kr_mod(kr_div(((0) + (kt + STAGES) * BK) + te_2, div_4), div_5);
        const int s = kr_mod(((0) + (kt + STAGES) * BK) + te_2, div_4);
        ktab[(kt + STAGES) & 1][te_2][0] = H * W * c + W * r + s;
        ktab[(kt + STAGES) & 1][te_2][1] = r;
        ktab[(kt + STAGES) & 1][te_2][2] = s;
      }
      __pipeline_commit();
    }
    __pipeline_wait_prior(STAGES - 1);
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < BK; kk += MK) {
      unsigned a_frag[FM][4], b_frag[FN][2];
      #pragma unroll
      for (int i = 0; i < FM; i++) {
        a_frag[i][0] = __float_as_uint(x_tile[kt % STAGES][kk + t][wm0 + i * 16 + g]);
        a_frag[i][1] = __float_as_uint(x_tile[kt % STAGES][kk + t][wm0 + i * 16 + g + 8]);
        a_frag[i][2] = __float_as_uint(x_tile[kt % STAGES][kk + t + 4][wm0 + i * 16 + g]);
        a_frag[i][3] = __float_as_uint(x_tile[kt % STAGES][kk + t + 4][wm0 + i * 16 + g + 8]);
        #pragma unroll
        for (int v = 0; v < 4; v++) a_frag[i][v] = kr_tf32(__uint_as_float(a_frag[i][v]));
      }
      #pragma unroll
      for (int j = 0; j < FN; j++) {
        kr_ldmatrix_x2(b_frag[j], &w_tile[kt % STAGES][wn0 + j * 8 + lane % 8][kk + (lane / 8 % 2) * 4]);
        #pragma unroll
        for (int v = 0; v < 2; v++) b_frag[j][v] = kr_tf32(__uint_as_float(b_frag[j][v]));
      }
      #pragma unroll
      for (int i = 0; i < FM; i++) {
        #pragma unroll
        for (int j = 0; j < FN; j++) {
          kr_mma_tf32(c_frag[i][j], a_frag[i], b_frag[j]);
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
