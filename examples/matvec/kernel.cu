// examples/matvec/kernel.cu: y = A * x in fp32. A is M x N, row-major; x has N elements and y
// has M. Written plainly: one thread per row of A (256 threads a block), each walking its row;
// neighbouring threads read addresses N floats apart, so the loads of A are not coalesced.
#include <cuda_runtime.h>

__global__ void matvec(int M, int N, float *A, float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int j = 0; j < N; j++) {
      sum += A[row * N + j] * x[j];
    }
    y[row] = sum;
  }
}

void launch_matvec(int M, int N, float *A, float *x, float *y, cudaStream_t stream) {
  int block = 256;
  int grid = (M + block - 1) / block;
  matvec<<<grid, block, 0, stream>>>(M, N, A, x, y);
}
