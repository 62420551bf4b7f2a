// Thread-per-row sum, the index written j + row * n, accumulated as s = s + e.
__global__ void rowsum(const float *x, float *y, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
      s = s + x[j + row * n];
    }
    y[row] = s;
  }
}
