// expect 1: rows_loop_carried.cu:11:7: note: kernel 'rowdiffs' is not a row reduction: 'prev = v
// A loop-carried value that is not an accumulator: prev = x[...] feeds the next iteration.
__global__ void rowdiffs(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    float prev = 0.0f;
    for (int j = 0; j < cols; j++) {
      float v = x[row * cols + j];
      s += v - prev;
      prev = v;
    }
    y[row] = s;
  }
}
