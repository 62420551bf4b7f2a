#include <cuda_pipeline.h>
// tensor_core golden: C = alpha * A * B^T + beta * C with bf16 operands and leading dimensions,
// accumulated into C in global memory.
#include <cuda_bf16.h>
// krewrite tensor_core: d += a * b on the tensor cores, one 16 x 8 x 16 product of a warp (PTX mma.sync)
static __device__ __forceinline__ void kr_mma_bf16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// krewrite tensor_core: 4 8 x 8 blocks of 16-bit elements from shared memory, lane l giving the address of row l % 8 of block l / 8 (PTX ldmatrix)
static __device__ __forceinline__ void kr_ldmatrix_x4(unsigned (&r)[4], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
    : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
    : "l"(__cvta_generic_to_shared(row)));
}

// krewrite tensor_core: 2 8 x 8 blocks of 16-bit elements from shared memory, lane l giving the address of row l % 8 of block l / 8 (PTX ldmatrix)
static __device__ __forceinline__ void kr_ldmatrix_x2(unsigned (&r)[2], const void *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
    : "=r"(r[0]), "=r"(r[1])
    : "l"(__cvta_generic_to_shared(row)));
}

__global__ void __launch_bounds__(128, 4) gemm_nt(int M, int N, int K, float alpha, const __nv_bfloat16 *A, int lda, const __nv_bfloat16 *B,
                        int ldb, float beta, float *C, int ldc) {
  // krewrite tile: 64 x 64 outputs of (i, j) per block, k tiles of 32; staged in shared memory: A, B
  // krewrite tensor_core: bf16 on the tensor cores (mma.sync 16 x 8 x 16), a 32 x 32 tile per warp
  // krewrite double_buffer: 3 shared-memory stages filled by cp.async
  constexpr int BM = 64, BN = 64, BK = 32;
  constexpr int TM = 8, TN = 4, STAGES = 3;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 32, WN = 32, MM = 16, MN = 8, MK = 16;
  constexpr int FM = WM / MM, FN = WN / MN;
  // krewrite tile: the tiles in 30720 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(128) unsigned char smem[];
  __nv_bfloat16 (*A_tile)[BM][BK + 8] = reinterpret_cast<__nv_bfloat16 (*)[BM][BK + 8]>(smem + 0);
  __nv_bfloat16 (*B_tile)[BN][BK + 8] = reinterpret_cast<__nv_bfloat16 (*)[BN][BK + 8]>(smem + 15360);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite tile: 'A' loads 16 bytes at a time when its rows allow it
  const bool A_vec = (lda) % 8 == 0 && reinterpret_cast<unsigned long long>(A) % 16 == 0;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (ldb) % 8 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  // krewrite tensor_core: warp w computes the WM x WN outputs at (wm0, wn0) as FM x FN products of 16 x 8, k steps of MK (bf16, PTX mma.sync)
  const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  float c_frag[FM][FN][4];
  #pragma unroll
  for (int i_1 = 0; i_1 < FM; i_1++)
    #pragma unroll
    for (int j_1 = 0; j_1 < FN; j_1++)
      #pragma unroll
      for (int v = 0; v < 4; v++) c_frag[i_1][j_1][v] = 0.0f;
  const int ntiles = ((K) - (0) + BK - 1) / BK;
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (0) + kt * BK;
      bool inside = true;
      inside = inside && A_vec;
      {
        const int i = m0 + 0;
        const int k = k0 + 0;
        inside = inside && (i < M && k < K);
      }
      {
        const int i = m0 + BM - 1;
        const int k = k0 + BK - 1;
        inside = inside && (i < M && k < K);
      }
      inside = inside && B_vec;
      {
        const int j = n0 + 0;
        const int k = k0 + 0;
        inside = inside && (j < N && k < K);
      }
      {
        const int j = n0 + BN - 1;
        const int k = k0 + BK - 1;
        inside = inside && (j < N && k < K);
      }
      if (inside) {
        #pragma unroll
        for (int it = 0; it < (BM * (BK / 8)) / NT; it++) {
          const int kk = (tid % (BK / 8)) * 8, mm = tid / (BK / 8) + it * 32;
          const int i = m0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][mm][kk], &A[i * lda + k], 16);
        }
        #pragma unroll
        for (int it = 0; it < (BN * (BK / 8)) / NT; it++) {
          const int kk = (tid % (BK / 8)) * 8, mm = tid / (BK / 8) + it * 32;
          const int j = n0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&B_tile[kt % STAGES][mm][kk], &B[j * ldb + k], 16);
        }
      } else {
        #pragma unroll
        for (int it = 0; it < (BM * (BK / 8)) / NT; it++) {
          const int kk = (tid % (BK / 8)) * 8, mm = tid / (BK / 8) + it * 32;
          bool A_full = A_vec;
          {
            const int i = m0 + mm;
            const int k = k0 + kk;
            A_full = A_full && (i < M && k < K);
          }
          {
            const int i = m0 + mm;
            const int k = k0 + kk + 7;
            A_full = A_full && (i < M && k < K);
          }
          if (A_full) {
            const int i = m0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&A_tile[kt % STAGES][mm][kk], &A[i * lda + k], 16);
          } else {
            for (int v = 0; v < 8; v++) {
              const int i = m0 + mm;
              const int k = k0 + kk + v;
              A_tile[kt % STAGES][mm][kk + v] = (i < M && k < K) ? A[i * lda + k] : (__nv_bfloat16)0;
            }
          }
        }
        #pragma unroll
        for (int it = 0; it < (BN * (BK / 8)) / NT; it++) {
          const int kk = (tid % (BK / 8)) * 8, mm = tid / (BK / 8) + it * 32;
          bool B_full = B_vec;
          {
            const int j = n0 + mm;
            const int k = k0 + kk;
            B_full = B_full && (j < N && k < K);
          }
          {
            const int j = n0 + mm;
            const int k = k0 + kk + 7;
            B_full = B_full && (j < N && k < K);
          }
          if (B_full) {
            const int j = n0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&B_tile[kt % STAGES][mm][kk], &B[j * ldb + k], 16);
          } else {
            for (int v = 0; v < 8; v++) {
              const int j = n0 + mm;
              const int k = k0 + kk + v;
              B_tile[kt % STAGES][mm][kk + v] = (j < N && k < K) ? B[j * ldb + k] : (__nv_bfloat16)0;
            }
          }
        }
      }
    }
    __pipeline_commit();
  }
  for (int kt = 0; kt < ntiles; kt++) {
    {
      // krewrite double_buffer: start the loads of tile kt + STAGES - 1
      const int e = kt + STAGES - 1;
      if (e < ntiles) {
        bool inside_1 = true;
        inside_1 = inside_1 && A_vec;
        {
          const int i = m0 + 0;
          const int k = ((0) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (i < M && k < K);
        }
        {
          const int i = m0 + BM - 1;
          const int k = ((0) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (i < M && k < K);
        }
        inside_1 = inside_1 && B_vec;
        {
          const int j = n0 + 0;
          const int k = ((0) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (j < N && k < K);
        }
        {
          const int j = n0 + BN - 1;
          const int k = ((0) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (j < N && k < K);
        }
        if (inside_1) {
          #pragma unroll
          for (int it = 0; it < (BM * (BK / 8)) / NT; it++) {
            const int kk = (tid % (BK / 8)) * 8, mm = tid / (BK / 8) + it * 32;
            const int i = m0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][mm][kk], &A[i * lda + k], 16);
          }
          #pragma unroll
          for (int it = 0; it < (BN * (BK / 8)) / NT; it++) {
            const int kk = (tid % (BK / 8)) * 8, mm = tid / (BK / 8) + it * 32;
            const int j = n0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][mm][kk], &B[j * ldb + k], 16);
          }
        } else {
          #pragma unroll
          for (int it = 0; it < (BM * (BK / 8)) / NT; it++) {
            const int kk = (tid % (BK / 8)) * 8, mm = tid / (BK / 8) + it * 32;
            bool A_full = A_vec;
            {
              const int i = m0 + mm;
              const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
              A_full = A_full && (i < M && k < K);
            }
            {
              const int i = m0 + mm;
              const int k = ((0) + (kt + STAGES - 1) * BK) + kk + 7;
              A_full = A_full && (i < M && k < K);
            }
            if (A_full) {
              const int i = m0 + mm;
              const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][mm][kk], &A[i * lda + k], 16);
            } else {
              for (int v = 0; v < 8; v++) {
                const int i = m0 + mm;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk + v;
                A_tile[(kt + STAGES - 1) % STAGES][mm][kk + v] = (i < M && k < K) ? A[i * lda + k] : (__nv_bfloat16)0;
              }
            }
          }
          #pragma unroll
          for (int it = 0; it < (BN * (BK / 8)) / NT; it++) {
            const int kk = (tid % (BK / 8)) * 8, mm = tid / (BK / 8) + it * 32;
            bool B_full = B_vec;
            {
              const int j = n0 + mm;
              const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
              B_full = B_full && (j < N && k < K);
            }
            {
              const int j = n0 + mm;
              const int k = ((0) + (kt + STAGES - 1) * BK) + kk + 7;
              B_full = B_full && (j < N && k < K);
            }
            if (B_full) {
              const int j = n0 + mm;
              const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][mm][kk], &B[j * ldb + k], 16);
            } else {
              for (int v = 0; v < 8; v++) {
                const int j = n0 + mm;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk + v;
                B_tile[(kt + STAGES - 1) % STAGES][mm][kk + v] = (j < N && k < K) ? B[j * ldb + k] : (__nv_bfloat16)0;
              }
            }
          }
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
      for (int i_1 = 0; i_1 < FM; i_1++) {
        kr_ldmatrix_x4(a_frag[i_1], &A_tile[kt % STAGES][wm0 + i_1 * 16 + lane % 16][kk + (lane / 16) * 8]);
      }
      #pragma unroll
      for (int j_1 = 0; j_1 < FN; j_1++) {
        kr_ldmatrix_x2(b_frag[j_1], &B_tile[kt % STAGES][wn0 + j_1 * 8 + lane % 8][kk + (lane / 8 % 2) * 8]);
      }
      #pragma unroll
      for (int i_1 = 0; i_1 < FM; i_1++) {
        #pragma unroll
        for (int j_1 = 0; j_1 < FN; j_1++) {
          float step_frag[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          kr_mma_bf16(step_frag, a_frag[i_1], b_frag[j_1]);
          #pragma unroll
          for (int v = 0; v < 4; v++) c_frag[i_1][j_1][v] += step_frag[v];
        }
      }
    }
    __syncthreads();
  }
  // krewrite tensor_core: each thread's outputs from its accumulators (rows g and g + 8, columns 2 * t and 2 * t + 1 of each product), under the kernel's own guard
  #pragma unroll
  for (int i_1 = 0; i_1 < FM; i_1++) {
    #pragma unroll
    for (int j_1 = 0; j_1 < FN; j_1++) {
      #pragma unroll
      for (int v = 0; v < 4; v++) {
        const int j = n0 + wn0 + j_1 * 8 + t * 2 + v % 2;
        const int i = m0 + wm0 + i_1 * 16 + g + (v / 2) * 8;
        if (i < M && j < N) {
          C[i * ldc + j] *= beta;
          C[i * ldc + j] += (alpha) * c_frag[i_1][j_1][v];
        }
      }
    }
  }
}
