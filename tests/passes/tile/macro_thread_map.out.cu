#include <cuda_pipeline.h>
// A matrix product whose thread map fixes the block size with a #define (blockIdx * TILE +
// threadIdx), B stored transposed and the sizes compile-time constants too.
#define TILE 16
#define M_ROWS 200
#define N_COLS 72
#define K_DEPTH 37

__global__ void __launch_bounds__(128, 8) mm_bt(const float *A, const float *Bt, float *C) {
  // krewrite tile: 32 x 32 outputs of (r, c) per block, k tiles of 8; staged in shared memory: A, Bt
  // krewrite register_tile: 2 x 4 outputs per thread, an outer product in registers
  // krewrite double_buffer: 2 shared-memory stages filled by cp.async
  constexpr int BM = 32, BN = 32, BK = 8;
  constexpr int TM = 2, TN = 4, STAGES = 2;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[STAGES][BK][BM + 4];
  __shared__ __align__(16) float Bt_tile[STAGES][BK][BN + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  float acc[TM][TN];
  #pragma unroll
  for (int i = 0; i < TM; i++)
    #pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = (float)0;
  const int ntiles = ((K_DEPTH) - (0) + BK - 1) / BK;
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (0) + kt * BK;
      bool inside = true;
      {
        const int r = m0 + 0;
        const int k = k0 + 0;
        inside = inside && (r < M_ROWS && k < K_DEPTH);
      }
      {
        const int r = m0 + BM - 1;
        const int k = k0 + BK - 1;
        inside = inside && (r < M_ROWS && k < K_DEPTH);
      }
      {
        const int c = n0 + 0;
        const int k = k0 + 0;
        inside = inside && (c < N_COLS && k < K_DEPTH);
      }
      {
        const int c = n0 + BN - 1;
        const int k = k0 + BK - 1;
        inside = inside && (c < N_COLS && k < K_DEPTH);
      }
      if (inside) {
        #pragma unroll
        for (int it = 0; it < (BM * BK) / NT; it++) {
          const int mm = tid / BK + it * 16, kk = tid % BK;
          const int r = m0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], &A[r * K_DEPTH + k], sizeof(float));
        }
        #pragma unroll
        for (int it = 0; it < (BN * BK) / NT; it++) {
          const int mm = tid / BK + it * 16, kk = tid % BK;
          const int c = n0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&Bt_tile[kt % STAGES][kk][mm], &Bt[c * K_DEPTH + k], sizeof(float));
        }
      } else {
        #pragma unroll
        for (int it = 0; it < (BM * BK) / NT; it++) {
          const int mm = tid / BK + it * 16, kk = tid % BK;
          const int r = m0 + mm;
          const int k = k0 + kk;
          const bool in = r < M_ROWS && k < K_DEPTH;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], in ? &A[r * K_DEPTH + k] : A, sizeof(float), in ? 0 : sizeof(float));
        }
        #pragma unroll
        for (int it = 0; it < (BN * BK) / NT; it++) {
          const int mm = tid / BK + it * 16, kk = tid % BK;
          const int c = n0 + mm;
          const int k = k0 + kk;
          const bool in_1 = c < N_COLS && k < K_DEPTH;
          __pipeline_memcpy_async(&Bt_tile[kt % STAGES][kk][mm], in_1 ? &Bt[c * K_DEPTH + k] : Bt, sizeof(float), in_1 ? 0 : sizeof(float));
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
          const int r = m0 + 0;
          const int k = ((0) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (r < M_ROWS && k < K_DEPTH);
        }
        {
          const int r = m0 + BM - 1;
          const int k = ((0) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (r < M_ROWS && k < K_DEPTH);
        }
        {
          const int c = n0 + 0;
          const int k = ((0) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (c < N_COLS && k < K_DEPTH);
        }
        {
          const int c = n0 + BN - 1;
          const int k = ((0) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (c < N_COLS && k < K_DEPTH);
        }
        if (inside_1) {
          #pragma unroll
          for (int it = 0; it < (BM * BK) / NT; it++) {
            const int mm = tid / BK + it * 16, kk = tid % BK;
            const int r = m0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], &A[r * K_DEPTH + k], sizeof(float));
          }
          #pragma unroll
          for (int it = 0; it < (BN * BK) / NT; it++) {
            const int mm = tid / BK + it * 16, kk = tid % BK;
            const int c = n0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&Bt_tile[(kt + STAGES - 1) % STAGES][kk][mm], &Bt[c * K_DEPTH + k], sizeof(float));
          }
        } else {
          #pragma unroll
          for (int it = 0; it < (BM * BK) / NT; it++) {
            const int mm = tid / BK + it * 16, kk = tid % BK;
            const int r = m0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            const bool in_2 = r < M_ROWS && k < K_DEPTH;
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], in_2 ? &A[r * K_DEPTH + k] : A, sizeof(float), in_2 ? 0 : sizeof(float));
          }
          #pragma unroll
          for (int it = 0; it < (BN * BK) / NT; it++) {
            const int mm = tid / BK + it * 16, kk = tid % BK;
            const int c = n0 + mm;
            const int k = ((0) + (kt + STAGES - 1) * BK) + kk;
            const bool in_3 = c < N_COLS && k < K_DEPTH;
            __pipeline_memcpy_async(&Bt_tile[(kt + STAGES - 1) % STAGES][kk][mm], in_3 ? &Bt[c * K_DEPTH + k] : Bt, sizeof(float), in_3 ? 0 : sizeof(float));
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
      float Bt_reg[TN];
      #pragma unroll
      for (int j = 0; j < TN; j++) Bt_reg[j] = Bt_tile[kt % STAGES][kk][tn0 + j];
      #pragma unroll
      for (int i = 0; i < TM; i++) {
        #pragma unroll
        for (int j = 0; j < TN; j++) {
          acc[i][j] += A_reg[i] * Bt_reg[j];
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
      const int r = m0 + tm0 + i;
      const int c = n0 + tn0 + j;
      if (r < M_ROWS && c < N_COLS) {
        float sum = 0.0f;
        sum += acc[i][j];
        C[r * N_COLS + c] = sum;
      }
    }
  }
}
