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
  f.shift = 0;
  while ((1ull << f.shift) < (unsigned long long)d) f.shift++;
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

// krewrite tensor_core: x rounded to tf32, to nearest with ties away from zero (as cvt.rna.tf32.f32, in two integer instructions); infinities and NaNs as they are
static __device__ __forceinline__ unsigned kr_tf32(float x) {
  const unsigned u = __float_as_uint(x);
  return (u & 0x7f800000u) == 0x7f800000u ? u : (u + 0x1000u) & 0xffffe000u;
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
  // krewrite implicit_gemm: the groups' run-time divisors, each division a multiply and a shift
  const kr_fastdiv div = kr_fastdiv_of((P) * (Q));
  const kr_fastdiv div_1 = kr_fastdiv_of(Q);
  const kr_fastdiv div_2 = kr_fastdiv_of(P);
  const kr_fastdiv div_3 = kr_fastdiv_of((R) * (S));
  const kr_fastdiv div_4 = kr_fastdiv_of(S);
  const kr_fastdiv div_5 = kr_fastdiv_of(R);
  // krewrite tile: the tiles in 79872 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(128) unsigned char smem[];
  float (*x_tile)[BK][BM + 8] = reinterpret_cast<float (*)[BK][BM + 8]>(smem + 0);
  float (*w_tile)[BK][BN + 8] = reinterpret_cast<float (*)[BK][BN + 8]>(smem + 52224);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite implicit_gemm: the axes of this thread's row of the x tile, the same in every load
  const int x_row = m0 + tid % BM;
  const int x_n = kr_div(x_row, div);
  const int x_p = kr_mod(kr_div(x_row, div_1), div_2);
  const int x_q = kr_mod(x_row, div_1);
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
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (0) + kt * BK;
      #pragma unroll
      for (int it = 0; it < (BM * BK) / NT; it++) {
        const int e = tid + it * NT;
        const int mm = e % BM, kk = e / BM;
        const int q = x_q;
        const int p = x_p;
        const int n = x_n;
        const int c = kr_div(k0 + kk, div_3);
        const int r = kr_mod(kr_div(k0 + kk, div_4), div_5);
        const int s = kr_mod(k0 + kk, div_4);
        int ih = p * stride - pad + r;
        int iw = q * stride - pad + s;
        if (q < Q && p < P && n < ((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K)) && q < Q && p < P && c < C && (ih >= 0 && ih < H && iw >= 0 && iw < W)) __pipeline_memcpy_async(&x_tile[kt % STAGES][kk][mm], &x[((n * C + c) * H + ih) * W + iw], sizeof(float));
        else x_tile[kt % STAGES][kk][mm] = (float)0;
      }
      #pragma unroll
      for (int it = 0; it < (BN * BK) / NT; it++) {
        const int e = tid + it * NT;
        const int mm = e % BN, kk = e / BN;
        const int k = n0 + mm;
        const int c = kr_div(k0 + kk, div_3);
        const int r = kr_mod(kr_div(k0 + kk, div_4), div_5);
        const int s = kr_mod(k0 + kk, div_4);
        if (k < K && k < K && c < C) __pipeline_memcpy_async(&w_tile[kt % STAGES][kk][mm], &w[((k * C + c) * R + r) * S + s], sizeof(float));
        else w_tile[kt % STAGES][kk][mm] = (float)0;
      }
    }
    __pipeline_commit();
  }
  for (int kt = 0; kt < ntiles; kt++) {
    {
      // krewrite double_buffer: start the loads of tile kt + STAGES - 1
      const int e = kt + STAGES - 1;
      if (e < ntiles) {
        #pragma unroll
        for (int it = 0; it < (BM * BK) / NT; it++) {
          const int e2 = tid + it * NT;
          const int mm = e2 % BM, kk = e2 / BM;
          const int q = x_q;
          const int p = x_p;
          const int n = x_n;
          const int c = kr_div(((0) + (kt + STAGES - 1) * BK) + kk, div_3);
          const int r = kr_mod(kr_div(((0) + (kt + STAGES - 1) * BK) + kk, div_4), div_5);
          const int s = kr_mod(((0) + (kt + STAGES - 1) * BK) + kk, div_4);
          int ih = p * stride - pad + r;
          int iw = q * stride - pad + s;
          if (q < Q && p < P && n < ((N * K * P * Q) + ((Q * P * K)) - 1) / ((Q * P * K)) && q < Q && p < P && c < C && (ih >= 0 && ih < H && iw >= 0 && iw < W)) __pipeline_memcpy_async(&x_tile[(kt + STAGES - 1) % STAGES][kk][mm], &x[((n * C + c) * H + ih) * W + iw], sizeof(float));
          else x_tile[(kt + STAGES - 1) % STAGES][kk][mm] = (float)0;
        }
        #pragma unroll
        for (int it = 0; it < (BN * BK) / NT; it++) {
          const int e2 = tid + it * NT;
          const int mm = e2 % BN, kk = e2 / BN;
          const int k = n0 + mm;
          const int c = kr_div(((0) + (kt + STAGES - 1) * BK) + kk, div_3);
          const int r = kr_mod(kr_div(((0) + (kt + STAGES - 1) * BK) + kk, div_4), div_5);
          const int s = kr_mod(((0) + (kt + STAGES - 1) * BK) + kk, div_4);
          if (k < K && k < K && c < C) __pipeline_memcpy_async(&w_tile[(kt + STAGES - 1) % STAGES][kk][mm], &w[((k * C + c) * R + r) * S + s], sizeof(float));
          else w_tile[(kt + STAGES - 1) % STAGES][kk][mm] = (float)0;
        }
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
        for (int v = 0; v < 4; v++) {
          a_frag[i][v] = kr_tf32(__uint_as_float(a_frag[i][v]));
        }
      }
      #pragma unroll
      for (int j = 0; j < FN; j++) {
        b_frag[j][0] = __float_as_uint(w_tile[kt % STAGES][kk + t][wn0 + j * 8 + g]);
        b_frag[j][1] = __float_as_uint(w_tile[kt % STAGES][kk + t + 4][wn0 + j * 8 + g]);
        #pragma unroll
        for (int v = 0; v < 2; v++) {
          b_frag[j][v] = kr_tf32(__uint_as_float(b_frag[j][v]));
        }
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
