// expect 1: rows_store_not_moving.cu:9:7: note: kernel 'rowlast' is not a row reduction: the store 'last[row] = x[row * cols + j]' in a row loop does not move with 'j'
// A store in the row loop whose index does not move with j.
__global__ void rowlast(const float *x, float *y, float *last, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) {
      s += x[row * cols + j];
      last[row] = x[row * cols + j];
    }
    y[row] = s;
  }
}
