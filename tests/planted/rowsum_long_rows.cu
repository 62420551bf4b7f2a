// tests/planted/rowsum_long_rows.cu (class 8; specs/rowsum): a separate path for rows longer than
// 4096 columns, which skips the last column; never taken at the test sizes.
__global__ void rowsum(int rows, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  if (cols > 4096) {
    for (int j = 0; j < cols - 1; j++) s += x[(long)r * cols + j];
  } else {
    for (int j = 0; j < cols; j++) s += x[(long)r * cols + j];
  }
  out[r] = s;
}
