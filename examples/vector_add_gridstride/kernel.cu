// examples/vector_add_gridstride/kernel.cu: out = x + y over n fp32 elements, with a grid-stride
// loop and a fixed-size grid: at most 1024 blocks of 256 threads, so for n > 262144 each thread
// handles several elements, i, i + 262144, ...
#include <cuda_runtime.h>

__global__ void vector_add_gridstride(int n, float *x, float *y, float *out) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = x[i] + y[i];
  }
}

void launch_vector_add_gridstride(int n, float *x, float *y, float *out, cudaStream_t stream) {
  int block = 256;
  int grid = (n + block - 1) / block;
  if (grid > 1024) grid = 1024;
  vector_add_gridstride<<<grid, block, 0, stream>>>(n, x, y, out);
}
