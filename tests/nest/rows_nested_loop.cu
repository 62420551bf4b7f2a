// expect 1: rows_nested_loop.cu:8:7: note: kernel 'rowpairs' is not a row reduction: a loop nested in a row loop
// A nested loop inside the row loop, with a statement after it (so not a band of reduction loops).
__global__ void rowpairs(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) {
      for (int k = 0; k < 2; k++) {
        s += x[row * cols + j] * k;
      }
      s *= 0.5f;
    }
    y[row] = s;
  }
}
