// A thread-per-row RMS norm over bf16 rows with an fp32 weight, x read through a row pointer
// declared in the kernel: the accesses move by 16-byte words (8 bf16, or 8 floats in two words), from the
// first element at which x's row, y's row and the weight all sit on a 16-byte boundary.
#include <cuda_bf16.h>

__global__ void rmsnorm_mixed(const __nv_bfloat16 *__restrict__ x, const float *__restrict__ w,
                              __nv_bfloat16 *__restrict__ y, int rows, int n, float eps) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const __nv_bfloat16 *xr = x + (size_t)row * n;
  float ss = 0.0f;
  for (int j = 0; j < n; ++j) {
    float v = __bfloat162float(xr[j]);
    ss += v * v;
  }
  float inv = rsqrtf(ss / n + eps);
  for (int j = 0; j < n; ++j) y[(size_t)row * n + j] = __float2bfloat16(__bfloat162float(xr[j]) * inv * w[j]);
}
