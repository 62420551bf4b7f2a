// A row loop that stores before the row's last reduction: split_rows refuses it.
__global__ void scale_then_sum(const float *x, float *y, float *out, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    for (int j = 0; j < n; j++) y[row * n + j] = 2.0f * x[row * n + j];
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += x[row * n + j];
    out[row] = s;
  }
}
