// Thread-per-row: the maximum through fmaxf(v, m) with a -INFINITY start, then a map loop that
// subtracts it (a row loop that stores).
__global__ void shift_by_max(const float *x, float *y, float *mx, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float m = -INFINITY;
    for (int j = 0; j < cols; j++) m = fmaxf(x[row * cols + j], m);
    for (int j = 0; j < cols; j++) y[row * cols + j] = x[row * cols + j] - m;
    mx[row] = m;
  }
}
