// examples/gemm_accum/kernel.cu: C = alpha * A * B + beta * C in fp32, the BLAS form. Sizes are
// compile-time constants, as in PolyBench-style code; each thread scales its element of C by beta
// and then accumulates into it in global memory, one product at a time.
#include <cuda_runtime.h>

#define NI 517
#define NJ 613
#define NK 131

__global__ void gemm(float alpha, float beta, const float *A, const float *B, float *C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < NI && j < NJ) {
    C[i * NJ + j] *= beta;
    for (int k = 0; k < NK; k++) {
      C[i * NJ + j] += alpha * A[i * NK + k] * B[k * NJ + j];
    }
  }
}
