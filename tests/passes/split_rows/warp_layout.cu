// split_rows after warp_reduce: it splits rows walked by a block each, so it refuses.
__global__ void rowsum_w(const float *x, float *y, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += x[row * n + j];
    y[row] = s;
  }
}
