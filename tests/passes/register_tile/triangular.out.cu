// examples/syrk/kernel.cu: the lower triangle of C = A * A^T (a symmetric rank-k update), A N x K
// row-major. Only elements with j <= i are computed; the rest of C is left as it was.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(64, 14) syrk_lower(int n, int k, const float *A, float *C) {
  // krewrite tile: 32 x 32 outputs of (i, j) per block, k tiles of 32; staged in shared memory: A
  // krewrite register_tile: 4 x 4 outputs per thread, an outer product in registers
  constexpr int BM = 32, BN = 32, BK = 32;
  constexpr int TM = 4, TN = 4;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[BK][BM + 4];
  __shared__ __align__(16) float A_tile_1[BK][BN + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  float acc[TM][TN];
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++)
    #pragma unroll
    for (int j_1 = 0; j_1 < TN; j_1++) acc[i_1][j_1] = (float)0;
  for (int k0 = 0; k0 < k; k0 += BK) {
    // krewrite tile: the k tile of the staged operands, loaded cooperatively
    bool inside = true;
    {
      const int i = m0 + 0;
      const int p = k0 + 0;
      inside = inside && (i < n && p < k);
    }
    {
      const int i = m0 + BM - 1;
      const int p = k0 + BK - 1;
      inside = inside && (i < n && p < k);
    }
    {
      const int j = n0 + 0;
      const int p = k0 + 0;
      inside = inside && (j < n && p < k);
    }
    {
      const int j = n0 + BN - 1;
      const int p = k0 + BK - 1;
      inside = inside && (j < n && p < k);
    }
    if (inside) {
      #pragma unroll
      for (int it_1 = 0; it_1 < (BM * BK) / NT; it_1++) {
        const int mm = tid / BK + it_1 * 2, kk = tid % BK;
        const int i = m0 + mm;
        const int p = k0 + kk;
        A_tile[kk][mm] = A[i * k + p];
      }
      #pragma unroll
      for (int it_1 = 0; it_1 < (BN * BK) / NT; it_1++) {
        const int mm = tid / BK + it_1 * 2, kk = tid % BK;
        const int j = n0 + mm;
        const int p = k0 + kk;
        A_tile_1[kk][mm] = A[j * k + p];
      }
    } else {
      #pragma unroll
      for (int it_1 = 0; it_1 < (BM * BK) / NT; it_1++) {
        const int mm = tid / BK + it_1 * 2, kk = tid % BK;
        const int i = m0 + mm;
        const int p = k0 + kk;
        A_tile[kk][mm] = (i < n && p < k) ? A[i * k + p] : (float)0;
      }
      #pragma unroll
      for (int it_1 = 0; it_1 < (BN * BK) / NT; it_1++) {
        const int mm = tid / BK + it_1 * 2, kk = tid % BK;
        const int j = n0 + mm;
        const int p = k0 + kk;
        A_tile_1[kk][mm] = (j < n && p < k) ? A[j * k + p] : (float)0;
      }
    }
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      float A_reg[TM];
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++) A_reg[i_1] = A_tile[kk][tm0 + i_1];
      float A_reg_1[TN];
      #pragma unroll
      for (int j_1 = 0; j_1 < TN; j_1++) A_reg_1[j_1] = A_tile_1[kk][tn0 + j_1];
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++) {
        #pragma unroll
        for (int j_1 = 0; j_1 < TN; j_1++) {
          acc[i_1][j_1] += A_reg[i_1] * A_reg_1[j_1];
        }
      }
    }
    __syncthreads();
  }
  // krewrite tile: each thread's outputs, under the kernel's own guard
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++) {
    #pragma unroll
    for (int j_1 = 0; j_1 < TN; j_1++) {
      const int j = n0 + tn0 + j_1;
      const int i = m0 + tm0 + i_1;
      if (i < n && j < n && j <= i) {
        float sum = 0.0f;
        sum += acc[i_1][j_1];
        C[i * n + j] = sum;
      }
    }
  }
}
