// expect 1: rows_recurrence.cu:9:56: note: kernel 'scanplain' is not a row reduction: 'y[row * cols + j - 1]' reads an element of 'y' that another iteration of the row loop stores
// A running prefix through memory: the row loop reads the element the previous iteration stored.
__global__ void scanplain(const float *x, float *y, float *tot, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += x[row * cols + j];
    y[row * cols] = x[row * cols];
    for (int j = 1; j < cols; j++) y[row * cols + j] = y[row * cols + j - 1] + x[row * cols + j];
    tot[row] = s;
  }
}
