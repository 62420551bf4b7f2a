#include <cuda_runtime.h>

// C = A * B, A row-major M x K, B row-major K x N.
__global__ void sgemm_nn(int M, int N, int K, const float *A, const float *B, float *C) {
  int n = threadIdx.x + blockIdx.x * blockDim.x;
  int m = threadIdx.y + blockIdx.y * blockDim.y;
  if (m >= M || n >= N) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) {
    s += A[m * K + k] * B[k * N + n];
  }
  C[m * N + n] = s;
}
