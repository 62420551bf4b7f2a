// examples/matmul_bf16/kernel.cu: C = A * B with bf16 operands and fp32 accumulation, as a mixed-
// precision layer computes it. A is M x K and B is K x N, both __nv_bfloat16, row-major; C is M x N
// float. Written plainly: one thread per element of C (16 x 16 blocks, x along the columns), each
// walking a row of A and a column of B in global memory, converting each operand to float.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void matmul_bf16(int M, int N, int K, const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      sum += __bfloat162float(A[row * K + k]) * __bfloat162float(B[k * N + col]);
    }
    C[row * N + col] = sum;
  }
}

void launch_matmul_bf16(int M, int N, int K, const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C,
                        cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  matmul_bf16<<<grid, block, 0, stream>>>(M, N, K, A, B, C);
}
