// tests/verify/planted/long.cu: vector_add with a path taken only for n > 4096 (a planted bug:
// the "large" path forgets y), so every test size of small.lua passes.
#include <cuda_runtime.h>

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (n > 4096) out[i] = a * x[i];
    else out[i] = a * x[i] + y[i];
  }
}
