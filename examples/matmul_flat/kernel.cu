// examples/matmul_flat/kernel.cu: C = A * B in fp32 with a one-dimensional launch: each thread
// takes one flat index of C and splits it into a row and a column with / and %, the way many
// generated kernels do.
#include <cuda_runtime.h>

__global__ void matmul_flat(const float *A, const float *B, float *C, int M, int N, int K) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int r = idx / N;
  int c = idx % N;
  if (idx < M * N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) {
      s += A[r * K + k] * B[k * N + c];
    }
    C[idx] = s;
  }
}
