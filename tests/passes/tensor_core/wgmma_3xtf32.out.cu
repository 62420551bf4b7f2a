#include <cuda_pipeline.h>
// tensor_core golden: C = A * B in fp32, one thread per element of C.

// krewrite tensor_core: d (64 x 64, this warp's 16 rows) += a (64 x 8, registers) * the 8 x 64 tile the descriptor names (k-major), for the warpgroup (PTX wgmma.mma_async, tf32, issued: wait for it with kr_wgmma_wait)
static __device__ __forceinline__ void kr_wgmma_tf32_n64(float (&d)[32], const unsigned (&a)[4], unsigned long long desc) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, 1, 1, 1;\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}

// krewrite tensor_core: keeps the compiler from moving d's registers across a product in flight
static __device__ __forceinline__ void kr_wgmma_hold_n64(float (&d)[32]) {
  #pragma unroll
  for (int i = 0; i < 32; i++) asm volatile("" : "+f"(d[i]) :: "memory");
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

// krewrite tensor_core: 3xtf32: x's high part, rounded to tf32 as cvt.rna.tf32.f32 rounds finite values (an infinity or NaN gives NaN, as its residual does)
static __device__ __forceinline__ unsigned kr_tf32_hi(float x) {
  return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}

// krewrite tensor_core: 3xtf32: x less its truncation to tf32, what the tensor cores read of x (its low 13 bits dropped); an infinity or NaN gives NaN
static __device__ __forceinline__ float kr_tf32_lo(float x) {
  return x - __uint_as_float(__float_as_uint(x) & 0xffffe000u);
}

__global__ void __launch_bounds__(128, 3) matmul(int M, int N, int K, float *A, float *B, float *C) {
  // krewrite tile: 64 x 64 outputs of (row, col) per block, k tiles of 32; staged in shared memory: A, B
  // krewrite tensor_core: 3xtf32 on the tensor cores (wgmma 16 x 8 x 8), a 64 x 16 tile per warp
  // krewrite double_buffer: 3 shared-memory stages filled by cp.async
  constexpr int BM = 64, BN = 64, BK = 32;
  constexpr int TM = 32, TN = 1, STAGES = 3;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 64, WN = 16, MM = 16, MN = 8, MK = 8;
  constexpr int FM = WM / MM, FN = WN / MN;
  // krewrite tile: the tiles in 68608 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(1024) unsigned char smem[];
  float (*A_tile)[BM * BK] = reinterpret_cast<float (*)[BM * BK]>(smem + 0);
  float (*B_tile)[BK][BN + 8] = reinterpret_cast<float (*)[BK][BN + 8]>(smem + 24576);
  // krewrite tensor_core: 3xtf32: the residuals of 'A' past its tf32 truncation (two buffers, its tile's layout)
  float (*A_tile_lo)[64 * BK] = reinterpret_cast<float (*)[64 * BK]>(smem + 52224);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite tile: 'A' loads 16 bytes at a time when its rows allow it
  const bool A_vec = (K) % 4 == 0 && reinterpret_cast<unsigned long long>(A) % 16 == 0;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (N) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  // krewrite tensor_core: warpgroup w computes 64 rows of the transposed product (along n), warp tid / 32 the 16 at wn0, each thread 32 of them (wgmma m64n64k8, 3xtf32)
  const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  float c_frag[32];
  #pragma unroll
  for (int v = 0; v < 32; v++) c_frag[v] = 0.0f;
  // krewrite tensor_core: 3xtf32: each k tile's products summed apart, then added to the total in fp32 (the tensor cores truncate as they accumulate: over a long k the total would drift)
  float step_frag[32];
  const int ntiles = ((K) - (0) + BK - 1) / BK;
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (0) + kt * BK;
      bool inside = true;
      inside = inside && A_vec;
      {
        const int row = m0 + 0;
        const int k = k0 + 0;
        inside = inside && (row < M && k < K);
      }
      {
        const int row = m0 + BM - 1;
        const int k = k0 + BK - 1;
        inside = inside && (row < M && k < K);
      }
      inside = inside && B_vec;
      {
        const int col = n0 + 0;
        const int k = k0 + 0;
        inside = inside && (col < N && k < K);
      }
      {
        const int col = n0 + BN - 1;
        const int k = k0 + BK - 1;
        inside = inside && (col < N && k < K);
      }
      if (inside) {
        #pragma unroll
        for (int it = 0; it < (BM * (BK / 4)) / NT; it++) {
          const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 16;
          const int row = m0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &A[row * K + k], 16);
        }
        #pragma unroll
        for (int it = 0; it < (BK * (BN / 4)) / NT; it++) {
          const int mm = (tid % (BN / 4)) * 4, kk = tid / (BN / 4) + it * 8;
          const int col = n0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&B_tile[kt % STAGES][kk][mm], &B[k * N + col], 16);
        }
      } else {
        #pragma unroll
        for (int it = 0; it < (BM * (BK / 4)) / NT; it++) {
          const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 16;
          bool A_full = A_vec;
          {
            const int row = m0 + mm;
            const int k = k0 + kk;
            A_full = A_full && (row < M && k < K);
          }
          {
            const int row = m0 + mm;
            const int k = k0 + kk + 3;
            A_full = A_full && (row < M && k < K);
          }
          if (A_full) {
            const int row = m0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&A_tile[kt % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &A[row * K + k], 16);
          } else {
            for (int v = 0; v < 4; v++) {
              const int row = m0 + mm;
              const int k = k0 + kk + v;
              A_tile[kt % STAGES][(mm) * BK + ((((kk + v) / 4) ^ ((mm) % 8)) * 4) + (kk + v) % 4] = (row < M && k < K) ? A[row * K + k] : (float)0;
            }
          }
        }
        #pragma unroll
        for (int it = 0; it < (BK * (BN / 4)) / NT; it++) {
          const int mm = (tid % (BN / 4)) * 4, kk = tid / (BN / 4) + it * 8;
          bool B_full = B_vec;
          {
            const int col = n0 + mm;
            const int k = k0 + kk;
            B_full = B_full && (col < N && k < K);
          }
          {
            const int col = n0 + mm + 3;
            const int k = k0 + kk;
            B_full = B_full && (col < N && k < K);
          }
          if (B_full) {
            const int col = n0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&B_tile[kt % STAGES][kk][mm], &B[k * N + col], 16);
          } else {
            for (int v = 0; v < 4; v++) {
              const int col = n0 + mm + v;
              const int k = k0 + kk;
              B_tile[kt % STAGES][kk][mm + v] = (col < N && k < K) ? B[k * N + col] : (float)0;
            }
          }
        }
      }
    }
    __pipeline_commit();
  }
  // krewrite tensor_core: tile 0's fragments; each tile's products then run under the next tile's wait, barrier, loads and fragments
  unsigned a_frag[BK / 8][4], a_next[BK / 8][4];
  unsigned a_lo[BK / 8][4], a_next_lo[BK / 8][4];
  __pipeline_wait_prior(STAGES - 2);
  kr_fence_async();
  __syncthreads();
  if (ntiles > 0) {
    // krewrite tensor_core: 3xtf32: the residuals of 'A' beside its tile (x less what the tensor cores read of it)
    #pragma unroll
    for (int e = tid; e < 64 * BK / 4; e += NT) {
      const float4 x_1 = reinterpret_cast<const float4 *>(&A_tile[0][0])[e];
      reinterpret_cast<float4 *>(&A_tile_lo[0][0])[e] = make_float4(kr_tf32_lo(x_1.x), kr_tf32_lo(x_1.y), kr_tf32_lo(x_1.z), kr_tf32_lo(x_1.w));
    }
    kr_fence_async();
    #pragma unroll
    for (int i = 0; i < BK / 8; i++) {
      {
        const float x_1 = B_tile[0][i * 8 + t][wn0 + g];
        a_frag[i][0] = kr_tf32_hi(x_1);
        a_lo[i][0] = __float_as_uint(x_1 - __uint_as_float(a_frag[i][0]));
      }
      {
        const float x_1 = B_tile[0][i * 8 + t][wn0 + g + 8];
        a_frag[i][1] = kr_tf32_hi(x_1);
        a_lo[i][1] = __float_as_uint(x_1 - __uint_as_float(a_frag[i][1]));
      }
      {
        const float x_1 = B_tile[0][i * 8 + t + 4][wn0 + g];
        a_frag[i][2] = kr_tf32_hi(x_1);
        a_lo[i][2] = __float_as_uint(x_1 - __uint_as_float(a_frag[i][2]));
      }
      {
        const float x_1 = B_tile[0][i * 8 + t + 4][wn0 + g + 8];
        a_frag[i][3] = kr_tf32_hi(x_1);
        a_lo[i][3] = __float_as_uint(x_1 - __uint_as_float(a_frag[i][3]));
      }
    }
  }
  __syncthreads();
  for (int kt = 0; kt < ntiles; kt++) {
    #pragma unroll
    for (int v = 0; v < 32; v++) step_frag[v] = 0.0f;
    kr_wgmma_hold_n64(step_frag);
    kr_wgmma_fence();
    #pragma unroll
    for (int i = 0; i < BK / 8; i++) {
      kr_wgmma_tf32_n64(step_frag, a_lo[i], kr_wgmma_desc(&A_tile[kt % STAGES][i * 8]));
      kr_wgmma_tf32_n64(step_frag, a_frag[i], kr_wgmma_desc(&A_tile_lo[kt % 2][i * 8]));
      kr_wgmma_tf32_n64(step_frag, a_frag[i], kr_wgmma_desc(&A_tile[kt % STAGES][i * 8]));
    }
    kr_wgmma_commit();
    if (kt + 1 < ntiles) {
      __pipeline_wait_prior(STAGES - 3);
      kr_fence_async();
      __syncthreads();
      {
        // krewrite double_buffer: start the loads of tile kt + STAGES - 1
        const int e = kt + STAGES - 1;
        if (e < ntiles) {
          bool inside_1 = true;
          inside_1 = inside_1 && A_vec;
          {
            const int row = m0 + 0;
            const int k = ((0) + (kt + STAGES - 1) * BK) + 0;
            inside_1 = inside_1 && (row < M && k < K);
          }
          {
            const int row = m0 + BM - 1;
            const int k = ((0) + (kt + STAGES - 1) * BK) + BK - 1;
            inside_1 = inside_1 && (row < M && k < K);
          }
          inside_1 = inside_1 && B_vec;
          {
            const int col = n0 + 0;
            const int k = ((0) + (kt + STAGES - 1) * BK) + 0;
            inside_1 = inside_1 && (col < N && k < K);
          }
          {
            const int col = n0 + BN - 1;
            const int k = ((0) + (kt + STAGES - 1) * BK) + BK - 1;
            inside_1 = inside_1 && (col < N && k < K);
          }
          if (inside_1) {
            #pragma unroll
            for (int it = 0; it < (BM * (BK / 4)) / NT; it++) {
              const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 16;
              const int row = m0 + mm;
              const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &A[row * K + k], 16);
            }
            #pragma unroll
            for (int it = 0; it < (BK * (BN / 4)) / NT; it++) {
              const int mm = (tid % (BN / 4)) * 4, kk = tid / (BN / 4) + it * 8;
              const int col = n0 + mm;
              const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][kk][mm], &B[k * N + col], 16);
            }
          } else {
            #pragma unroll
            for (int it = 0; it < (BM * (BK / 4)) / NT; it++) {
              const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 16;
              bool A_full = A_vec;
              {
                const int row = m0 + mm;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
                A_full = A_full && (row < M && k < K);
              }
              {
                const int row = m0 + mm;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk + 3;
                A_full = A_full && (row < M && k < K);
              }
              if (A_full) {
                const int row = m0 + mm;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
                __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][(mm) * BK + ((((kk) / 4) ^ ((mm) % 8)) * 4) + (kk) % 4], &A[row * K + k], 16);
              } else {
                for (int v = 0; v < 4; v++) {
                  const int row = m0 + mm;
                  const int k = ((0) + (kt + STAGES - 1) * BK) + kk + v;
                  A_tile[(kt + STAGES - 1) % STAGES][(mm) * BK + ((((kk + v) / 4) ^ ((mm) % 8)) * 4) + (kk + v) % 4] = (row < M && k < K) ? A[row * K + k] : (float)0;
                }
              }
            }
            #pragma unroll
            for (int it = 0; it < (BK * (BN / 4)) / NT; it++) {
              const int mm = (tid % (BN / 4)) * 4, kk = tid / (BN / 4) + it * 8;
              bool B_full = B_vec;
              {
                const int col = n0 + mm;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
                B_full = B_full && (col < N && k < K);
              }
              {
                const int col = n0 + mm + 3;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
                B_full = B_full && (col < N && k < K);
              }
              if (B_full) {
                const int col = n0 + mm;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
                __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][kk][mm], &B[k * N + col], 16);
              } else {
                for (int v = 0; v < 4; v++) {
                  const int col = n0 + mm + v;
                  const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
                  B_tile[(kt + STAGES - 1) % STAGES][kk][mm + v] = (col < N && k < K) ? B[k * N + col] : (float)0;
                }
              }
            }
          }
        }
        __pipeline_commit();
      }
      // krewrite tensor_core: 3xtf32: the residuals of 'A' beside its tile (x less what the tensor cores read of it)
      #pragma unroll
      for (int e = tid; e < 64 * BK / 4; e += NT) {
        const float4 x_1 = reinterpret_cast<const float4 *>(&A_tile[(kt + 1) % STAGES][0])[e];
        reinterpret_cast<float4 *>(&A_tile_lo[(kt + 1) % 2][0])[e] = make_float4(kr_tf32_lo(x_1.x), kr_tf32_lo(x_1.y), kr_tf32_lo(x_1.z), kr_tf32_lo(x_1.w));
      }
      #pragma unroll
      for (int i = 0; i < BK / 8; i++) {
        {
          const float x_1 = B_tile[(kt + 1) % STAGES][i * 8 + t][wn0 + g];
          a_next[i][0] = kr_tf32_hi(x_1);
          a_next_lo[i][0] = __float_as_uint(x_1 - __uint_as_float(a_next[i][0]));
        }
        {
          const float x_1 = B_tile[(kt + 1) % STAGES][i * 8 + t][wn0 + g + 8];
          a_next[i][1] = kr_tf32_hi(x_1);
          a_next_lo[i][1] = __float_as_uint(x_1 - __uint_as_float(a_next[i][1]));
        }
        {
          const float x_1 = B_tile[(kt + 1) % STAGES][i * 8 + t + 4][wn0 + g];
          a_next[i][2] = kr_tf32_hi(x_1);
          a_next_lo[i][2] = __float_as_uint(x_1 - __uint_as_float(a_next[i][2]));
        }
        {
          const float x_1 = B_tile[(kt + 1) % STAGES][i * 8 + t + 4][wn0 + g + 8];
          a_next[i][3] = kr_tf32_hi(x_1);
          a_next_lo[i][3] = __float_as_uint(x_1 - __uint_as_float(a_next[i][3]));
        }
      }
      kr_fence_async();
      __syncthreads();
    }
    kr_wgmma_wait();
    kr_wgmma_hold_n64(c_frag);
    kr_wgmma_hold_n64(step_frag);
    #pragma unroll
    for (int v = 0; v < 32; v++) c_frag[v] += step_frag[v];
    #pragma unroll
    for (int i = 0; i < BK / 8; i++) {
      kr_wgmma_keep(a_frag[i]);
      kr_wgmma_keep(a_lo[i]);
      if (kt + 1 < ntiles)
        for (int v = 0; v < 4; v++) a_frag[i][v] = a_next[i][v], a_lo[i][v] = a_next_lo[i][v];
    }
  }
  // krewrite tensor_core: each thread's outputs from its accumulators (rows g and g + 8 of its warp's, columns 8i + 2t and 8i + 2t + 1), under the kernel's own guard
  #pragma unroll
  for (int i = 0; i < 8; i++) {
    #pragma unroll
    for (int v = 0; v < 4; v++) {
      const int col = n0 + wn0 + g + (v / 2) * 8;
      const int row = m0 + i * 8 + t * 2 + v % 2;
      if (row < M && col < N) {
        float sum = 0.0f;
        sum += c_frag[i * 4 + v];
        C[row * N + col] = sum;
      }
    }
  }
}

void launch_matmul(int M, int N, int K, float *A, float *B, float *C, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  matmul<<<grid, block, 0, stream>>>(M, N, K, A, B, C);
}
