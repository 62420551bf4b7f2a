// bench/proto/conv/conv_gather.cu: the tf32 wgmma kernel implicit_gemm emitted before row patches (4-byte gathers), with a launcher (run.sh).
#include <cuda_pipeline.h>
// examples/conv2d/kernel.cu: direct 2-D convolution (cross-correlation, as in PyTorch) in fp32.
//   x: input  (N, C, H, W)      w: weights (K, C, R, S)      b: bias (K)
//   y: output (N, K, P, Q) with P = (H + 2*pad - R) / stride + 1, Q = (W + 2*pad - S) / stride + 1
// NCHW, contiguous. Out-of-range input positions are zero padding. Written plainly: one thread
// per output element (a 1-D grid over N*K*P*Q, 256 threads a block), each thread looping over
// the C x R x S window with the index arithmetic recomputed in the innermost loop.
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

// krewrite tensor_core: d (64 x 96, this warp's 16 rows) += a (64 x 8, registers) * the 8 x 96 tile the descriptor names (k-major), for the warpgroup (PTX wgmma.mma_async, tf32, issued: wait for it with kr_wgmma_wait)
static __device__ __forceinline__ void kr_wgmma_tf32_n96(float (&d)[48], const unsigned (&a)[4], unsigned long long desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n96k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, {%48, %49, %50, %51}, %52, 1, 1, 1;\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}

// krewrite tensor_core: keeps the compiler from moving d's registers across a product in flight
static __device__ __forceinline__ void kr_wgmma_hold_n96(float (&d)[48]) {
  #pragma unroll
  for (int i = 0; i < 48; i++) asm volatile("" : "+f"(d[i]) :: "memory");
}

// krewrite tensor_core: the wgmma descriptor of a k-major tile of 128-byte rows in shared memory, swizzled by 128 bytes, 8-row groups 1024 bytes apart
static __device__ __forceinline__ unsigned long long kr_wgmma_desc(const void *tile) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(tile);
  return (unsigned long long)((a >> 4) & 0x3fff) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

// krewrite tensor_core: the warpgroup's registers ready for wgmma (PTX wgmma.fence)
static __device__ __forceinline__ void kr_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// krewrite tensor_core: the products issued since the last commit, one group (PTX wgmma.commit_group)
static __device__ __forceinline__ void kr_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }

// krewrite tensor_core: every group finished (PTX wgmma.wait_group 0)
static __device__ __forceinline__ void kr_wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }

// krewrite tensor_core: a product's fragments kept in their registers until here (it reads them until its group is waited for)
static __device__ __forceinline__ void kr_wgmma_keep(const unsigned (&a)[4]) {
  asm volatile("" :: "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]) : "memory");
}

// krewrite tensor_core: this thread's shared-memory writes ordered before the tensor cores' reads (PTX fence.proxy.async)
static __device__ __forceinline__ void kr_fence_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// krewrite tensor_core: x rounded to tf32, to nearest with ties away from zero (PTX cvt.rna.tf32.f32)
static __device__ __forceinline__ unsigned kr_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
}

__global__ void __launch_bounds__(256, 2) conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, const float *__restrict__ x, const float *__restrict__ w, const float *__restrict__ b, float *__restrict__ y) {
  // krewrite tile: 128 x 96 outputs of (n, k) per block, k tiles of 32; staged in shared memory: x, w
  // krewrite tensor_core: tf32 on the tensor cores (wgmma 16 x 8 x 8), a 16 x 96 tile per warp
  // krewrite double_buffer: 3 shared-memory stages filled by cp.async
  constexpr int BM = 128, BN = 96, BK = 32;
  constexpr int TM = 1, TN = 48, STAGES = 3;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 16, WN = 96, MM = 16, MN = 8, MK = 8;
  constexpr int FM = WM / MM, FN = WN / MN;
  // krewrite implicit_gemm: the groups' run-time divisors, each division a multiply and a shift
  const kr_fastdiv div = kr_fastdiv_of((P) * (Q));
  const kr_fastdiv div_1 = kr_fastdiv_of(Q);
  const kr_fastdiv div_2 = kr_fastdiv_of(P);
  const kr_fastdiv div_3 = kr_fastdiv_of((R) * (S));
  const kr_fastdiv div_4 = kr_fastdiv_of(S);
  const kr_fastdiv div_5 = kr_fastdiv_of(R);
  // krewrite tile: the tiles in 89088 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(1024) unsigned char smem[];
  float (*x_tile)[BK][BM + 8] = reinterpret_cast<float (*)[BK][BM + 8]>(smem + 0);
  float (*w_tile)[BN * BK] = reinterpret_cast<float (*)[BN * BK]>(smem + 52224);
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
  // krewrite tensor_core: warpgroup w computes 64 rows of the block's product (along m), warp tid / 32 the 16 at wm0, each thread 48 of them (wgmma m64n96k8, tf32)
  const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  float c_frag[48];
  #pragma unroll
  for (int v = 0; v < 48; v++) c_frag[v] = 0.0f;
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
        const int mm = tid % BM, kk = tid / BM + it * 2;
        const int4 tv = *reinterpret_cast<const int4 *>(&ktab[kt & 1][kk][0]);
        const bool in_1 = x_in && k0 + kk < (C) * (R) * (S) && (unsigned)(x_cond + tv.y) <= (unsigned)x_span && (unsigned)(x_cond_2 + tv.z) <= (unsigned)x_span_1;
        __pipeline_memcpy_async(&x_tile[kt % STAGES][kk][mm], &x[in_1 ? x_base + tv.x : 0], sizeof(float), in_1 ? 0 : sizeof(float));
      }
      #pragma unroll
      for (int it = 0; it < (BN * BK) / NT; it++) {
        const int mm = tid / BK + it * 8, kk = tid % BK;
        const int k = n0 + mm;
        const bool in_2 = k < K && k < K && k0 + kk < (C) * (R) * (S);
        __pipeline_memcpy_async(&w_tile[kt % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &w[in_2 ? C * R * S * k + (k0 + kk) : 0], sizeof(float), in_2 ? 0 : sizeof(float));
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
  // krewrite tensor_core: tile 0's fragments; each tile's products then run under the next tile's wait, barrier, loads and fragments
  unsigned a_frag[BK / 8][4], a_next[BK / 8][4];
  __pipeline_wait_prior(STAGES - 2);
  kr_fence_async();
  __syncthreads();
  if (ntiles > 0) {
    #pragma unroll
    for (int i = 0; i < BK / 8; i++) {
      a_frag[i][0] = kr_tf32(x_tile[0][i * 8 + t][wm0 + g]);
      a_frag[i][1] = kr_tf32(x_tile[0][i * 8 + t][wm0 + g + 8]);
      a_frag[i][2] = kr_tf32(x_tile[0][i * 8 + t + 4][wm0 + g]);
      a_frag[i][3] = kr_tf32(x_tile[0][i * 8 + t + 4][wm0 + g + 8]);
    }
  }
  for (int kt = 0; kt < ntiles; kt++) {
    kr_wgmma_hold_n96(c_frag);
    kr_wgmma_fence();
    #pragma unroll
    for (int i = 0; i < BK / 8; i++)
      kr_wgmma_tf32_n96(c_frag, a_frag[i], kr_wgmma_desc(&w_tile[kt % STAGES][i * 8]));
    kr_wgmma_commit();
    if (kt + 1 < ntiles) {
      __pipeline_wait_prior(STAGES - 3);
      kr_fence_async();
      __syncthreads();
      {
        // krewrite double_buffer: start the loads of tile kt + STAGES - 1
        const int e = kt + STAGES - 1;
        if (e < ntiles) {
          #pragma unroll
          for (int it = 0; it < (BM * BK) / NT; it++) {
            const int mm = tid % BM, kk = tid / BM + it * 2;
            const int4 tv_1 = *reinterpret_cast<const int4 *>(&ktab[(kt + STAGES - 1) & 1][kk][0]);
            const bool in_3 = x_in && ((0) + (kt + STAGES - 1) * BK) + kk < (C) * (R) * (S) && (unsigned)(x_cond + tv_1.y) <= (unsigned)x_span && (unsigned)(x_cond_2 + tv_1.z) <= (unsigned)x_span_1;
            __pipeline_memcpy_async(&x_tile[(kt + STAGES - 1) % STAGES][kk][mm], &x[in_3 ? x_base + tv_1.x : 0], sizeof(float), in_3 ? 0 : sizeof(float));
          }
          #pragma unroll
          for (int it = 0; it < (BN * BK) / NT; it++) {
            const int mm = tid / BK + it * 8, kk = tid % BK;
            const int k = n0 + mm;
            const bool in_4 = k < K && k < K && ((0) + (kt + STAGES - 1) * BK) + kk < (C) * (R) * (S);
            __pipeline_memcpy_async(&w_tile[(kt + STAGES - 1) % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &w[in_4 ? C * R * S * k + (((0) + (kt + STAGES - 1) * BK) + kk) : 0], sizeof(float), in_4 ? 0 : sizeof(float));
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
      #pragma unroll
      for (int i = 0; i < BK / 8; i++) {
        a_next[i][0] = kr_tf32(x_tile[(kt + 1) % STAGES][i * 8 + t][wm0 + g]);
        a_next[i][1] = kr_tf32(x_tile[(kt + 1) % STAGES][i * 8 + t][wm0 + g + 8]);
        a_next[i][2] = kr_tf32(x_tile[(kt + 1) % STAGES][i * 8 + t + 4][wm0 + g]);
        a_next[i][3] = kr_tf32(x_tile[(kt + 1) % STAGES][i * 8 + t + 4][wm0 + g + 8]);
      }
    }
    kr_wgmma_wait();
    kr_wgmma_hold_n96(c_frag);
    #pragma unroll
    for (int i = 0; i < BK / 8; i++) {
      kr_wgmma_keep(a_frag[i]);
      if (kt + 1 < ntiles)
        for (int v = 0; v < 4; v++) a_frag[i][v] = a_next[i][v];
    }
  }
  // krewrite tensor_core: the accumulators through a [BN][BM + 4] tile in shared memory, so that a warp stores 32 consecutive outputs of one column (the output runs along m)
  __pipeline_wait_prior(0);
  __syncthreads();
  float (*out_tile)[BM + 4] = reinterpret_cast<float (*)[BM + 4]>(smem);
  #pragma unroll
  for (int i = 0; i < 12; i++) {
    #pragma unroll
    for (int v = 0; v < 4; v++)
      out_tile[i * 8 + t * 2 + v % 2][wm0 + g + (v / 2) * 8] = c_frag[i * 4 + v];
  }
  __syncthreads();
  for (int eo = 0; eo < BM * BN / NT; eo++) {
    const int mo = tid % BM, no = tid / BM + eo * 2;
    const int q = kr_mod(m0 + mo, div_1);
    const int p = kr_mod(kr_div(m0 + mo, div_1), div_2);
    const int k = n0 + no;
    const int n = kr_div(m0 + mo, div);
    const int idx = n * ((Q * P * K)) + p * (Q) + k * ((Q * P)) + q;
    if (idx < N * K * P * Q && q < Q && p < P && k < K) {
      float sum = b[k];
      sum += out_tile[no][mo];
      y[idx] = sum;
    }
  }
}

void launch_conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, float *x,
                   float *w, float *b, float *y, cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int shmem = 89088;
  cudaFuncSetAttribute(conv2d, cudaFuncAttributeMaxDynamicSharedMemorySize, shmem);
  dim3 grid((K + 95) / 96, (N * P * Q + 127) / 128);
  conv2d<<<grid, 256, shmem, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, y);
}
