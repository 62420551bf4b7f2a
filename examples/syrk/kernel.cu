// examples/syrk/kernel.cu: the lower triangle of C = A * A^T (a symmetric rank-k update), A N x K
// row-major. Only elements with j <= i are computed; the rest of C is left as it was.
#include <cuda_runtime.h>

__global__ void syrk_lower(int n, int k, const float *A, float *C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n && j <= i) {
    float sum = 0.0f;
    for (int p = 0; p < k; p++) sum += A[i * k + p] * A[j * k + p];
    C[i * n + j] = sum;
  }
}
