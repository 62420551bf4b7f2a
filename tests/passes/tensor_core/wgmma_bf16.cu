// tensor_core golden: C = alpha * A * B^T + beta * C with bf16 operands and leading dimensions,
// accumulated into C in global memory.
#include <cuda_bf16.h>
__global__ void gemm_nt(int M, int N, int K, float alpha, const __nv_bfloat16 *A, int lda, const __nv_bfloat16 *B,
                        int ldb, float beta, float *C, int ldc) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    C[i * ldc + j] *= beta;
    for (int k = 0; k < K; k++) C[i * ldc + j] += alpha * __bfloat162float(A[i * lda + k]) * __bfloat162float(B[j * ldb + k]);
  }
}
