// tests/verify/planted/scale.cu: two kernels whose names share a prefix, `scale` and `scale2`,
// one thread per element. A recipe that vectorises `scale` quarters the grid of `scale`'s launch
// only; the launch of `scale2` must keep its grid.
#include <cuda_runtime.h>

__global__ void scale(int n, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}

__global__ void scale2(int n, float *x, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 3.0f * x[i];
}
