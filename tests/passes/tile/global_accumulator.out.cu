// examples/gemm_accum/kernel.cu: C = alpha * A * B + beta * C in fp32, the BLAS form. Sizes are
// compile-time constants, as in PolyBench-style code; each thread scales its element of C by beta
// and then accumulates into it in global memory, one product at a time.
#include <cuda_runtime.h>

#define NI 777
#define NJ 911
#define NK 523

__global__ void __launch_bounds__(1024, 1) gemm(float alpha, float beta, const float *A, const float *B, float *C) {
  // krewrite tile: 32 x 32 outputs of (i, j) per block, k tiles of 8; staged in shared memory: A
  constexpr int BM = 32, BN = 32, BK = 8;
  constexpr int TM = 1, TN = 1;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[BK][BM + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  float acc[TM][TN];
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++)
    #pragma unroll
    for (int j_1 = 0; j_1 < TN; j_1++) acc[i_1][j_1] = (float)0;
  for (int k0 = 0; k0 < NK; k0 += BK) {
    // krewrite tile: the k tile of the staged operands, loaded cooperatively
    bool inside = true;
    {
      const int i = m0 + 0;
      const int k = k0 + 0;
      inside = inside && (i < NI && k < NK);
    }
    {
      const int i = m0 + BM - 1;
      const int k = k0 + BK - 1;
      inside = inside && (i < NI && k < NK);
    }
    if (inside) {
      for (int e = tid; e < BM * BK; e += NT) {
        const int mm = e / BK, kk = e % BK;
        const int i = m0 + mm;
        const int k = k0 + kk;
        A_tile[kk][mm] = A[i * NK + k];
      }
    } else {
      for (int e = tid; e < BM * BK; e += NT) {
        const int mm = e / BK, kk = e % BK;
        const int i = m0 + mm;
        const int k = k0 + kk;
        A_tile[kk][mm] = (i < NI && k < NK) ? A[i * NK + k] : (float)0;
      }
    }
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      float A_reg[TM];
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++) A_reg[i_1] = A_tile[kk][tm0 + i_1];
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++) {
        #pragma unroll
        for (int j_1 = 0; j_1 < TN; j_1++) {
          const int j = n0 + tn0 + j_1;
          const int k = k0 + kk;
          acc[i_1][j_1] += alpha * A_reg[i_1] * ((j < NJ && k < NK) ? B[k * NJ + j] : 0);
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
      if (i < NI && j < NJ) {
        C[i * NJ + j] *= beta;
        C[i * NJ + j] += acc[i_1][j_1];
      }
    }
  }
}
