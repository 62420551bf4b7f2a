// The number of rows is read from device memory (a count left by a previous kernel): the launch
// cannot compute the grid and the workspace from it.
__global__ void rowsum_dyn(const float *x, float *y, const int *nrows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < nrows[0]) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += x[row * n + j];
    y[row] = s;
  }
}
