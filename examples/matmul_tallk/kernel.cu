// examples/matmul_tallk/kernel.cu: C = A * B in fp32 for a small output and a long reduction: A is
// M x K, B is K x N, C is M x N, row-major. The first CUDA matmul one writes: one thread per
// element of C in 16 x 16 blocks, the dot product of a row of A and a column of B read straight
// from global memory. With M = N = 512 the whole output is 262,144 threads, each walking K =
// 32,768 products alone.
#include <cuda_runtime.h>

__global__ void matmul_tallk(const float *A, const float *B, float *C, int M, int N, int K) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  float dot = 0.0f;
  for (int k = 0; k < K; ++k) dot += A[m * K + k] * B[k * N + n];
  C[m * N + n] = dot;
}

void launch_matmul_tallk(const float *A, const float *B, float *C, int M, int N, int K, cudaStream_t s) {
  dim3 block(16, 16);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  matmul_tallk<<<grid, block, 0, s>>>(A, B, C, M, N, K);
}
