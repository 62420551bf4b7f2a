// expect 1: rows_acc_read_in_loop.cu:9:7: note: kernel 'rowscan' is not a row reduction: the accumulator 's' is read inside its loop
// A running prefix: the accumulator is read inside its loop (y[...] = s).
__global__ void rowscan(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) {
      s += x[row * cols + j];
      y[row * cols + j] = s;
    }
  }
}
