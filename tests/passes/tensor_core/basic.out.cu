#include <cuda_pipeline.h>
#include <mma.h>
// tensor_core golden: C = A * B in fp32, one thread per element of C.

__global__ void __launch_bounds__(128, 4) matmul(int M, int N, int K, float *A, float *B, float *C) {
  // krewrite tile: 64 x 64 outputs of (row, col) per block, k tiles of 32; staged in shared memory: A, B
  // krewrite tensor_core: 3xtf32 on the tensor cores (WMMA 16 x 16 x 8), a 32 x 32 tile per warp
  // krewrite double_buffer: 3 shared-memory stages filled by cp.async
  constexpr int BM = 64, BN = 64, BK = 32;
  constexpr int TM = 8, TN = 4, STAGES = 3;
  constexpr int NT = (BM / TM) * (BN / TN);
  constexpr int WM = 32, WN = 32, MM = 16, MN = 16, MK = 8;
  constexpr int FM = WM / MM, FN = WN / MN;
  // krewrite tile: the tiles in 55296 bytes of dynamic shared memory (the launch's shmem)
  extern __shared__ __align__(128) unsigned char smem[];
  float (*A_tile)[BM][BK + 4] = reinterpret_cast<float (*)[BM][BK + 4]>(smem + 0);
  float (*B_tile)[BK][BN + 8] = reinterpret_cast<float (*)[BK][BN + 8]>(smem + 27648);
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * 4, tn0 = (tid % (BN / TN)) * TN;
  // krewrite tile: 'A' loads 16 bytes at a time when its rows allow it
  const bool A_vec = (K) % 4 == 0 && reinterpret_cast<unsigned long long>(A) % 16 == 0;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (N) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  // krewrite tensor_core: warp w computes the WM x WN outputs at (wm0, wn0) as FM x FN fragments of MM x MN, k steps of MK (3xtf32)
  const int wm0 = (tid / 32 / (BN / WN)) * WM, wn0 = (tid / 32 % (BN / WN)) * WN;
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, MM, MN, MK, float> c_frag[FM][FN];
  #pragma unroll
  for (int i = 0; i < FM; i++)
    #pragma unroll
    for (int j = 0; j < FN; j++) nvcuda::wmma::fill_fragment(c_frag[i][j], 0.0f);
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
          __pipeline_memcpy_async(&A_tile[kt % STAGES][mm][kk], &A[row * K + k], 16);
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
            __pipeline_memcpy_async(&A_tile[kt % STAGES][mm][kk], &A[row * K + k], 16);
          } else {
            for (int v = 0; v < 4; v++) {
              const int row = m0 + mm;
              const int k = k0 + kk + v;
              A_tile[kt % STAGES][mm][kk + v] = (row < M && k < K) ? A[row * K + k] : (float)0;
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
  for (int kt = 0; kt < ntiles; kt++) {
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
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][mm][kk], &A[row * K + k], 16);
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
              __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][mm][kk], &A[row * K + k], 16);
            } else {
              for (int v = 0; v < 4; v++) {
                const int row = m0 + mm;
                const int k = ((0) + (kt + STAGES - 1) * BK) + kk + v;
                A_tile[(kt + STAGES - 1) % STAGES][mm][kk + v] = (row < M && k < K) ? A[row * K + k] : (float)0;
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
    __pipeline_wait_prior(STAGES - 1);
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < BK; kk += MK) {
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, MM, MN, MK, nvcuda::wmma::precision::tf32, nvcuda::wmma::row_major> a_frag[FM];
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, MM, MN, MK, nvcuda::wmma::precision::tf32, nvcuda::wmma::row_major> a_lo[FM];
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, MM, MN, MK, nvcuda::wmma::precision::tf32, nvcuda::wmma::row_major> b_frag[FN];
      nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, MM, MN, MK, nvcuda::wmma::precision::tf32, nvcuda::wmma::row_major> b_lo[FN];
      nvcuda::wmma::fragment<nvcuda::wmma::accumulator, MM, MN, MK, float> step_frag;
      #pragma unroll
      for (int i = 0; i < FM; i++) {
        nvcuda::wmma::load_matrix_sync(a_frag[i], &A_tile[kt % STAGES][wm0 + i * MM][kk], BK + 4);
        #pragma unroll
        for (int v = 0; v < a_frag[i].num_elements; v++) {
          const float x_1 = a_frag[i].x[v];
          a_frag[i].x[v] = nvcuda::wmma::__float_to_tf32(x_1);
          a_lo[i].x[v] = nvcuda::wmma::__float_to_tf32(x_1 - a_frag[i].x[v]);
        }
      }
      #pragma unroll
      for (int j = 0; j < FN; j++) {
        nvcuda::wmma::load_matrix_sync(b_frag[j], &B_tile[kt % STAGES][kk][wn0 + j * MN], BN + 8);
        #pragma unroll
        for (int v = 0; v < b_frag[j].num_elements; v++) {
          const float x_1 = b_frag[j].x[v];
          b_frag[j].x[v] = nvcuda::wmma::__float_to_tf32(x_1);
          b_lo[j].x[v] = nvcuda::wmma::__float_to_tf32(x_1 - b_frag[j].x[v]);
        }
      }
      #pragma unroll
      for (int i = 0; i < FM; i++) {
        #pragma unroll
        for (int j = 0; j < FN; j++) {
          nvcuda::wmma::fill_fragment(step_frag, 0.0f);
          nvcuda::wmma::mma_sync(step_frag, a_lo[i], b_frag[j], step_frag);
          nvcuda::wmma::mma_sync(step_frag, a_frag[i], b_lo[j], step_frag);
          nvcuda::wmma::mma_sync(step_frag, a_frag[i], b_frag[j], step_frag);
          #pragma unroll
          for (int v = 0; v < step_frag.num_elements; v++) c_frag[i][j].x[v] += step_frag.x[v];
        }
      }
    }
    __syncthreads();
  }
  // krewrite tensor_core: the fragments through shared memory to each thread's TM x TN outputs
  float (*c_tile)[BN + 4] = reinterpret_cast<float (*)[BN + 4]>(smem);
  #pragma unroll
  for (int i = 0; i < FM; i++)
    #pragma unroll
    for (int j = 0; j < FN; j++)
      nvcuda::wmma::store_matrix_sync(&c_tile[wm0 + i * MM][wn0 + j * MN], c_frag[i][j], BN + 4, nvcuda::wmma::mem_row_major);
  __syncthreads();
  float acc[TM][TN];
  #pragma unroll
  for (int i = 0; i < TM; i++)
    #pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = c_tile[tm0 + (i / 4) * (BM / (TM / 4)) + i % 4][tn0 + j];
  // krewrite tile: each thread's outputs, under the kernel's own guard
  #pragma unroll
  for (int i = 0; i < TM; i++) {
    #pragma unroll
    for (int j = 0; j < TN; j++) {
      const int col = n0 + tn0 + j;
      const int row = m0 + tm0 + (i / 4) * (BM / (TM / 4)) + i % 4;
      if (row < M && col < N) {
        float sum = 0.0f;
        sum += acc[i][j];
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
