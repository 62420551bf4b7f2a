#include <cuda_pipeline.h>
// examples/matmul/kernel.cu: C = A * B in fp32. A is M x K, B is K x N, C is M x N, all
// row-major and contiguous. Written plainly: one thread per element of C, each thread walking a
// row of A and a column of B straight from global memory. Blocks are 16 x 16 threads; x runs
// along the columns of C and y along its rows.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256, 3) matmul(int M, int N, int K, float *A, float *B, float *C) {
  // krewrite tile: 64 x 64 outputs of (row, col) per block, k tiles of 8; staged in shared memory: A, B
  // krewrite register_tile: 4 x 4 outputs per thread, an outer product in registers
  // krewrite double_buffer: 3 shared-memory stages filled by cp.async
  constexpr int BM = 64, BN = 64, BK = 8;
  constexpr int TM = 4, TN = 4, STAGES = 3;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[STAGES][BK][BM + 4];
  __shared__ __align__(16) float B_tile[STAGES][BK][BN + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (N) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  float acc[TM][TN];
  #pragma unroll
  for (int i = 0; i < TM; i++)
    #pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = (float)0;
  const int ntiles = ((K) - (0) + BK - 1) / BK;
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (0) + kt * BK;
      bool inside = true;
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
        for (int it = 0; it < (BM * BK) / NT; it++) {
          const int mm = tid / BK + it * 32, kk = tid % BK;
          const int row = m0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], &A[row * K + k], sizeof(float));
        }
        for (int e = tid; e < BK * (BN / 4); e += NT) {
          const int mm = (e % (BN / 4)) * 4, kk = e / (BN / 4);
          const int col = n0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&B_tile[kt % STAGES][kk][mm], &B[k * N + col], 16);
        }
      } else {
        #pragma unroll
        for (int it = 0; it < (BM * BK) / NT; it++) {
          const int mm = tid / BK + it * 32, kk = tid % BK;
          const int row = m0 + mm;
          const int k = k0 + kk;
          const bool in_1 = row < M && k < K;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], in_1 ? &A[row * K + k] : A, sizeof(float), in_1 ? 0 : sizeof(float));
        }
        for (int e = tid; e < BK * (BN / 4); e += NT) {
          const int mm = (e % (BN / 4)) * 4, kk = e / (BN / 4);
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
          for (int it = 0; it < (BM * BK) / NT; it++) {
            const int mm = tid / BK + it * 32, kk = tid % BK;
            const int row = m0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], &A[row * K + k], sizeof(float));
          }
          for (int e2 = tid; e2 < BK * (BN / 4); e2 += NT) {
            const int mm = (e2 % (BN / 4)) * 4, kk = e2 / (BN / 4);
            const int col = n0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][kk][mm], &B[k * N + col], 16);
          }
        } else {
          #pragma unroll
          for (int it = 0; it < (BM * BK) / NT; it++) {
            const int mm = tid / BK + it * 32, kk = tid % BK;
            const int row = m0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            const bool in_2 = row < M && k < K;
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], in_2 ? &A[row * K + k] : A, sizeof(float), in_2 ? 0 : sizeof(float));
          }
          for (int e2 = tid; e2 < BK * (BN / 4); e2 += NT) {
            const int mm = (e2 % (BN / 4)) * 4, kk = e2 / (BN / 4);
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
    for (int kk = 0; kk < BK; kk++) {
      float A_reg[TM];
      #pragma unroll
      for (int i = 0; i < TM; i++) A_reg[i] = A_tile[kt % STAGES][kk][tm0 + i];
      float B_reg[TN];
      #pragma unroll
      for (int j = 0; j < TN; j++) B_reg[j] = B_tile[kt % STAGES][kk][tn0 + j];
      #pragma unroll
      for (int i = 0; i < TM; i++) {
        #pragma unroll
        for (int j = 0; j < TN; j++) {
          acc[i][j] += A_reg[i] * B_reg[j];
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
      const int col = n0 + tn0 + j;
      const int row = m0 + tm0 + i;
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
