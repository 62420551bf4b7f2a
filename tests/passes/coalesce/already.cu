// examples/matmul/kernel.cu: C = A * B in fp32. A is M x K, B is K x N, C is M x N, all
// row-major and contiguous. Written plainly: one thread per element of C, each thread walking a
// row of A and a column of B straight from global memory. Blocks are 16 x 16 threads; x runs
// along the columns of C and y along its rows.
#include <cuda_runtime.h>

__global__ void matmul(int M, int N, int K, float *A, float *B, float *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      sum += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = sum;
  }
}

void launch_matmul(int M, int N, int K, float *A, float *B, float *C, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  matmul<<<grid, block, 0, stream>>>(M, N, K, A, B, C);
}
