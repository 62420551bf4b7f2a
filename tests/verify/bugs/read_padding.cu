// examples/vector_add/kernel.cu with a read one past the end that does not change the result
// (times zero): at n = 7 the element lies in the buffer's padding up to 16 bytes, where no guard
// page is, so only the emulator's exact bounds check can tell.
#include <cuda_runtime.h>

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = a * x[i] + y[i] + 0.0f * x[i + 1];  // planted: reads x[n]
  }
}

void launch_vector_add(int n, float a, float *x, float *y, float *out, cudaStream_t stream) {
  int block = 256;
  int grid = (n + block - 1) / block;
  vector_add<<<grid, block, 0, stream>>>(n, a, x, y, out);
}
