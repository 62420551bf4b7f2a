#include <cuda_pipeline.h>
// C = A^T * B^T in fp32: A is K x M and B is N x K, both read along their rows; the k loop starts at a
// parameter. split_k before double_buffer: schedule passes compose in any order.
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

__global__ void __launch_bounds__(128, 4) tt(const float *A, const float *B, float *C, int M, int N, int K, int k_first) {
  // krewrite tile: 64 x 64 outputs of (i, j) per block, k tiles of 16; staged in shared memory: A, B
  // krewrite tensor_core: tf32 on the tensor cores (mma.sync 16 x 8 x 8), a 32 x 32 tile per warp
  // krewrite double_buffer: 2 shared-memory stages filled by cp.async
  constexpr int BM = 64, BN = 64, BK = 16;
  constexpr int TM = 8, TN = 4, STAGES = 2;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 32, WN = 32, MM = 16, MN = 8, MK = 8;
  constexpr int FM = WM / MM, FN = WN / MN;
  // krewrite tile: the tiles in 19456 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(128) unsigned char smem[];
  float (*A_tile)[BK][BM + 8] = reinterpret_cast<float (*)[BK][BM + 8]>(smem + 0);
  float (*B_tile)[BN][BK + 4] = reinterpret_cast<float (*)[BN][BK + 4]>(smem + 9216);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite tile: 'A' loads 16 bytes at a time when its rows allow it
  const bool A_vec = (M) % 4 == 0 && reinterpret_cast<unsigned long long>(A) % 16 == 0;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (K) % 4 == 0 && (k_first) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  // krewrite tensor_core: warp w computes the WM x WN outputs at (wm0, wn0) as FM x FN products of 16 x 8, k steps of MK (tf32, PTX mma.sync)
  const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
  const int lane = tid % 32, g = lane / 4, t = lane % 4;
  float c_frag[FM][FN][4];
  #pragma unroll
  for (int i_1 = 0; i_1 < FM; i_1++)
    #pragma unroll
    for (int j_1 = 0; j_1 < FN; j_1++)
      #pragma unroll
      for (int v = 0; v < 4; v++) c_frag[i_1][j_1][v] = 0.0f;
  const int ntiles = ((K) - (k_first) + BK - 1) / BK;
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (k_first) + kt * BK;
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
        for (int it = 0; it < (BK * (BM / 4)) / NT; it++) {
          const int mm = (tid % (BM / 4)) * 4, kk = tid / (BM / 4) + it * 8;
          const int i = m0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], &A[k * M + i], 16);
        }
        #pragma unroll
        for (int it = 0; it < (BN * (BK / 4)) / NT; it++) {
          const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 32;
          const int j = n0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&B_tile[kt % STAGES][mm][kk], &B[j * K + k], 16);
        }
      } else {
        #pragma unroll
        for (int it = 0; it < (BK * (BM / 4)) / NT; it++) {
          const int mm = (tid % (BM / 4)) * 4, kk = tid / (BM / 4) + it * 8;
          bool A_full = A_vec;
          {
            const int i = m0 + mm;
            const int k = k0 + kk;
            A_full = A_full && (i < M && k < K);
          }
          {
            const int i = m0 + mm + 3;
            const int k = k0 + kk;
            A_full = A_full && (i < M && k < K);
          }
          if (A_full) {
            const int i = m0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], &A[k * M + i], 16);
          } else {
            for (int v = 0; v < 4; v++) {
              const int i = m0 + mm + v;
              const int k = k0 + kk;
              A_tile[kt % STAGES][kk][mm + v] = (i < M && k < K) ? A[k * M + i] : (float)0;
            }
          }
        }
        #pragma unroll
        for (int it = 0; it < (BN * (BK / 4)) / NT; it++) {
          const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 32;
          bool B_full = B_vec;
          {
            const int j = n0 + mm;
            const int k = k0 + kk;
            B_full = B_full && (j < N && k < K);
          }
          {
            const int j = n0 + mm;
            const int k = k0 + kk + 3;
            B_full = B_full && (j < N && k < K);
          }
          if (B_full) {
            const int j = n0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&B_tile[kt % STAGES][mm][kk], &B[j * K + k], 16);
          } else {
            for (int v = 0; v < 4; v++) {
              const int j = n0 + mm;
              const int k = k0 + kk + v;
              B_tile[kt % STAGES][mm][kk + v] = (j < N && k < K) ? B[j * K + k] : (float)0;
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
          const int k = ((k_first) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (i < M && k < K);
        }
        {
          const int i = m0 + BM - 1;
          const int k = ((k_first) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (i < M && k < K);
        }
        inside_1 = inside_1 && B_vec;
        {
          const int j = n0 + 0;
          const int k = ((k_first) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (j < N && k < K);
        }
        {
          const int j = n0 + BN - 1;
          const int k = ((k_first) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (j < N && k < K);
        }
        if (inside_1) {
          #pragma unroll
          for (int it = 0; it < (BK * (BM / 4)) / NT; it++) {
            const int mm = (tid % (BM / 4)) * 4, kk = tid / (BM / 4) + it * 8;
            const int i = m0 + mm;
            const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], &A[k * M + i], 16);
          }
          #pragma unroll
          for (int it = 0; it < (BN * (BK / 4)) / NT; it++) {
            const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 32;
            const int j = n0 + mm;
            const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][mm][kk], &B[j * K + k], 16);
          }
        } else {
          #pragma unroll
          for (int it = 0; it < (BK * (BM / 4)) / NT; it++) {
            const int mm = (tid % (BM / 4)) * 4, kk = tid / (BM / 4) + it * 8;
            bool A_full = A_vec;
            {
              const int i = m0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              A_full = A_full && (i < M && k < K);
            }
            {
              const int i = m0 + mm + 3;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              A_full = A_full && (i < M && k < K);
            }
            if (A_full) {
              const int i = m0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], &A[k * M + i], 16);
            } else {
              for (int v = 0; v < 4; v++) {
                const int i = m0 + mm + v;
                const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
                A_tile[(kt + STAGES - 1) % STAGES][kk][mm + v] = (i < M && k < K) ? A[k * M + i] : (float)0;
              }
            }
          }
          #pragma unroll
          for (int it = 0; it < (BN * (BK / 4)) / NT; it++) {
            const int kk = (tid % (BK / 4)) * 4, mm = tid / (BK / 4) + it * 32;
            bool B_full = B_vec;
            {
              const int j = n0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              B_full = B_full && (j < N && k < K);
            }
            {
              const int j = n0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk + 3;
              B_full = B_full && (j < N && k < K);
            }
            if (B_full) {
              const int j = n0 + mm;
              const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][mm][kk], &B[j * K + k], 16);
            } else {
              for (int v = 0; v < 4; v++) {
                const int j = n0 + mm;
                const int k = ((k_first) + (kt + STAGES - 1) * BK) + kk + v;
                B_tile[(kt + STAGES - 1) % STAGES][mm][kk + v] = (j < N && k < K) ? B[j * K + k] : (float)0;
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
        a_frag[i_1][0] = __float_as_uint(A_tile[kt % STAGES][kk + t][wm0 + i_1 * 16 + g]);
        a_frag[i_1][1] = __float_as_uint(A_tile[kt % STAGES][kk + t][wm0 + i_1 * 16 + g + 8]);
        a_frag[i_1][2] = __float_as_uint(A_tile[kt % STAGES][kk + t + 4][wm0 + i_1 * 16 + g]);
        a_frag[i_1][3] = __float_as_uint(A_tile[kt % STAGES][kk + t + 4][wm0 + i_1 * 16 + g + 8]);
        #pragma unroll
        for (int v = 0; v < 4; v++) a_frag[i_1][v] = kr_tf32(__uint_as_float(a_frag[i_1][v]));
      }
      #pragma unroll
      for (int j_1 = 0; j_1 < FN; j_1++) {
        kr_ldmatrix_x2(b_frag[j_1], &B_tile[kt % STAGES][wn0 + j_1 * 8 + lane % 8][kk + (lane / 8 % 2) * 4]);
        #pragma unroll
        for (int v = 0; v < 2; v++) b_frag[j_1][v] = kr_tf32(__uint_as_float(b_frag[j_1][v]));
      }
      #pragma unroll
      for (int i_1 = 0; i_1 < FM; i_1++) {
        #pragma unroll
        for (int j_1 = 0; j_1 < FN; j_1++) {
          kr_mma_tf32(c_frag[i_1][j_1], a_frag[i_1], b_frag[j_1]);
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
          float acc = 0.0f;
          acc += c_frag[i_1][j_1][v];
          C[i * N + j] = acc;
        }
      }
    }
  }
}
