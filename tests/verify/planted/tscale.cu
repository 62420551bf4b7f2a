// tests/verify/planted/tscale.cu: scale.cu as templates, launched as scale<2> and scale2<3>: a launch
// change to `scale` must reach scale<2>'s launch only (template names too).
#include <cuda_runtime.h>
template <int K> __global__ void scale(int n, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = K * x[i];
}
template <int K> __global__ void scale2(int n, float *x, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = K * x[i];
}
