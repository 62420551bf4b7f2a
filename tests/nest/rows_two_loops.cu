// expect 1: rows_two_loops.cu:8:36: note: kernel 'twice' is not a row reduction: 's' is accumulated by two loops
__global__ void twice(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += x[row * cols + j];
    s = s * 0.5f;
    for (int j = 0; j < cols; j++) s += x[row * cols + j] * x[row * cols + j];
    y[row] = s;
  }
}
