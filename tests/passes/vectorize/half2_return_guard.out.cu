#include <cuda_fp16.h>
// The early-return shape, __half elements as __half2 (width 2); the element index is also used
// as a value, so each copy redeclares it.
__global__ void hscale(const __half *x, __half *y, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // vectorize: whole vectors only when x and y are 4-byte aligned (x + 1 is not)
  const bool kr_aligned = (reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) % 4 == 0;
  const int kr_nv = kr_aligned ? (n) / 2 : 0;
  if (i < kr_nv) {
    const int kr_v = i;
    const __half2 kr_x = reinterpret_cast<const __half2 *>(x)[kr_v];
    __half2 kr_y;
    {
      const int i = 2 * kr_v;
      float v = __half2float(kr_x.x) * s + (float)(i & 7);
      kr_y.x = __float2half(v);
    }
    {
      const int i = 2 * kr_v + 1;
      float v = __half2float(kr_x.y) * s + (float)(i & 7);
      kr_y.y = __float2half(v);
    }
    reinterpret_cast<__half2 *>(y)[kr_v] = kr_y;
  }
  for (int kr_e = kr_nv * 2 + i; kr_e < (n); kr_e += gridDim.x * blockDim.x) {
    const int i = kr_e;
    float v = __half2float(x[i]) * s + (float)(i & 7);
    y[i] = __float2half(v);
  }
}
