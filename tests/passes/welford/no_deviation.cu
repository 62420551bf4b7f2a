// A sum and a sum of squares (not of deviations from the mean): no Welford pair.
__global__ void moments(const float *x, float *m1, float *m2, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += x[row * cols + j];
    float mean = s / cols;
    float q = 0.0f;
    for (int j = 0; j < cols; j++) q += x[row * cols + j] * x[row * cols + j];
    m1[row] = mean;
    m2[row] = q / cols - mean * mean;
  }
}
