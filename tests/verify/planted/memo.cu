// tests/verify/planted/memo.cu: vector_add that remembers its results in __device__ memory and
// returns them on later calls instead of computing (a planted bug: state that survives a launch).
// It is right the first time it runs in a process and wrong on every later call with new inputs.
#include <cuda_runtime.h>

__device__ int g_valid[1 << 20];
__device__ float g_memo[1 << 20];

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (i < (1 << 20) && g_valid[i]) {
      out[i] = g_memo[i];
      continue;
    }
    out[i] = a * x[i] + y[i];
    if (i < (1 << 20)) g_memo[i] = out[i], g_valid[i] = 1;
  }
}
