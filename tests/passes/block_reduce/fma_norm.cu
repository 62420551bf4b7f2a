// A row's norm accumulated by fused multiply-adds, one thread per row.
__global__ void norm_rows(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  for (int j = 0; j < cols; j++) s = fmaf(x[row * cols + j], x[row * cols + j], s);
  y[row] = sqrtf(s);
}
