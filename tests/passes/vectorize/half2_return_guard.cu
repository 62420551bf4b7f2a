#include <cuda_fp16.h>
// The early-return shape, __half elements as __half2 (width 2); the element index is also used
// as a value, so each copy redeclares it.
__global__ void hscale(const __half *x, __half *y, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = __half2float(x[i]) * s + (float)(i & 7);
  y[i] = __float2half(v);
}
