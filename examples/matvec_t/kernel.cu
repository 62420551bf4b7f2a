// examples/matvec_t/kernel.cu: y = A^T * x in fp32. A is M x N, row-major; x has M elements and
// y has N. Written plainly: one thread per output element j (256 threads a block), each walking
// down column j of A. Neighbouring threads read neighbouring addresses, so the loads of A are
// coalesced, but each thread adds its M products one after another, and there are only N
// threads.
#include <cuda_runtime.h>

__global__ void matvec_t(int M, int N, float *A, float *x, float *y) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < N) {
    float sum = 0.0f;
    for (int i = 0; i < M; i++) {
      sum += A[i * N + col] * x[i];
    }
    y[col] = sum;
  }
}

void launch_matvec_t(int M, int N, float *A, float *x, float *y, cudaStream_t stream) {
  int block = 256;
  int grid = (N + block - 1) / block;
  matvec_t<<<grid, block, 0, stream>>>(M, N, A, x, y);
}
