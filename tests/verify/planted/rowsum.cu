// tests/verify/planted/rowsum.cu: out[r] = sum of row r of x (rows x cols), one block of 128
// threads per row, a strided loop over the row and a shared-memory tree reduction.
#include <cuda_runtime.h>

__global__ void rowsum(int rows, int cols, const float *x, float *out) {
  __shared__ float part[128];
  int r = blockIdx.x;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) acc += x[(size_t)r * cols + j];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[r] = part[0];
}
