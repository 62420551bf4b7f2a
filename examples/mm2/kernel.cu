// examples/mm2/kernel.cu: D = (A * B) * C through a temporary T = A * B, two launches of one
// naive matrix-product kernel (the PolyBench 2mm shape, without the scalars).
#include <cuda_runtime.h>

__global__ void mm(const float *X, const float *Y, float *Z, int rows, int cols, int inner) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    float t = 0.0f;
    for (int q = 0; q < inner; q++) t += X[r * inner + q] * Y[q * cols + c];
    Z[r * cols + c] = t;
  }
}
