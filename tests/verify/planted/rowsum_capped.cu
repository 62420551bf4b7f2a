// tests/verify/planted/rowsum_capped.cu: rowsum.cu with its loop capped at 256 columns (a planted
// bug), right for every row of rowsum.lua's test sizes and wrong for longer rows.
#include <cuda_runtime.h>

__global__ void rowsum(int rows, int cols, const float *x, float *out) {
  __shared__ float part[128];
  int r = blockIdx.x;
  float acc = 0.0f;
  for (int j = threadIdx.x; j < cols && j < 256; j += blockDim.x) acc += x[(size_t)r * cols + j];
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[r] = part[0];
}
