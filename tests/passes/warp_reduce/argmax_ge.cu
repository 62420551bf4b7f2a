// Arg-max with >=: the last index of the maximum; min of the row also kept (two loops).
__global__ void lastmax(const float *x, int *arg, float *lo, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float m = -INFINITY;
    int a = 0;
    for (int j = 0; j < cols; j++) {
      if (x[row * cols + j] >= m) {
        m = x[row * cols + j];
        a = j;
      }
    }
    float mn = INFINITY;
    for (int j = 0; j < cols; j++) mn = fminf(mn, x[row * cols + j]);
    arg[row] = a;
    lo[row] = mn;
  }
}
