// A thread-per-row sum with CRLF line ends and comments in the loop.
__global__ void crsum(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f; // the sum
    for (int j = 0; j < cols; j++) {
      /* one element */
      s += x[row * cols + j];
    }
    y[row] = s;
  }
}
