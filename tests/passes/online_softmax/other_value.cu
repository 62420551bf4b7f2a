// The max of x, then the sum of exp over a different array z: not a softmax's pair.
__global__ void mixed(const float *x, const float *z, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float m = -INFINITY;
    for (int j = 0; j < cols; j++) m = fmaxf(m, x[row * cols + j]);
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += expf(z[row * cols + j] - m);
    y[row] = s;
  }
}
