// tests/verify/planted/bench_only.cu: vector_add with a path taken only at the benchmark size of
// small.lua (n = 2^20, a planted bug: it forgets y there), so no test size and no size between
// the tests and the benchmark size sees it; only the benchmark-size check can.
#include <cuda_runtime.h>

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (n == 1048576) out[i] = a * x[i];
    else out[i] = a * x[i] + y[i];
  }
}
