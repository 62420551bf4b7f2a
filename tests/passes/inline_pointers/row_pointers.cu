// Each row named by a pointer local, read and written through it (a softmax a thread a row).
__global__ void softmax_rows(const float *x, float *y, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *xr = x + (size_t)r * n;
  float *yr = y + (size_t)r * n;
  float m = -INFINITY;
  for (int j = 0; j < n; ++j) m = fmaxf(m, xr[j]);
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += expf(xr[j] - m);
  for (int j = 0; j < n; ++j) yr[j] = expf(xr[j] - m) / s;
}
