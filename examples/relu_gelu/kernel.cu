// examples/relu_gelu/kernel.cu: two elementwise activations of one fp32 vector x of n elements,
// as two kernels and two launches:
//   gelu: y[i] = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))   (the tanh form)
//   relu: z[i] = max(x[i], 0)
// Written plainly: one thread per element, 256 threads a block.
#include <cuda_runtime.h>

__global__ void gelu(int n, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float inner = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = 0.5f * v * (1.0f + tanhf(inner));
  }
}

__global__ void relu(int n, float *x, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    z[i] = fmaxf(x[i], 0.0f);
  }
}

void launch_relu_gelu(int n, float *x, float *y, float *z, cudaStream_t stream) {
  int block = 256;
  int grid = (n + block - 1) / block;
  gelu<<<grid, block, 0, stream>>>(n, x, y);
  relu<<<grid, block, 0, stream>>>(n, x, z);
}
