// examples/colsum/kernel.cu: column sums in fp32: y[j] = sum_i A[i][j] for A (M x N),
// row-major; y has N elements. Written plainly: one thread per column (256 threads a block),
// each walking down its column. Neighbouring threads read neighbouring addresses, so the loads
// are coalesced, but each thread adds its M values one after another, and there are only N
// threads: with N = 4096, 16 blocks for the whole GPU.
#include <cuda_runtime.h>

__global__ void colsum(int M, int N, float *A, float *y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < N) {
    float sum = 0.0f;
    for (int i = 0; i < M; i++) {
      sum += A[i * N + col];
    }
    y[col] = sum;
  }
}

void launch_colsum(int M, int N, float *A, float *y, cudaStream_t stream) {
  int block = 256;
  int grid = (N + block - 1) / block;
  colsum<<<grid, block, 0, stream>>>(M, N, A, y);
}
