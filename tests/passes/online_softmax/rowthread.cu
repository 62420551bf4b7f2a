// Thread-per-row softmax, the maximum as fmaxf(v, m), the sum of __expf written s = s + e.
__global__ void smx(const float *x, float *y, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float m = -INFINITY;
    for (int j = 0; j < n; j++) m = fmaxf(x[j + row * n], m);
    float s = 0.0f;
    for (int j = 0; j < n; j++) s = s + __expf(x[j + row * n] - m);
    for (int j = 0; j < n; j++) y[j + row * n] = __expf(x[j + row * n] - m) / s;
  }
}
