// examples/matmul_tn/kernel.cu: C = A^T * B in fp32, with A stored K x M (so A^T is M x K), B
// K x N and C M x N, all row-major. The common way to write a transposed operand: the index of A
// walks down a column (stride M) as k grows.
#include <cuda_runtime.h>

__global__ void matmul_tn(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[k * M + row] * B[k * N + col];
  C[row * N + col] = acc;
}
