#include <cuda_fp16.h>
__global__ void produce(int n, float *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = 2.0f * i;
}

__global__ void halve(int n, __half *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = __float2half(0.5f) * t[i];
}
