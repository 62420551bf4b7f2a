// A sum of exponentials without a maximum before it.
__global__ void sumexp(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += expf(x[row * cols + j]);
    y[row] = s;
  }
}
