// The squared-deviation loop starts at 1, the sum loop at 0.
__global__ void wranges(const float *x, float *y, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += x[row * cols + j];
    float mean = s / cols;
    float q = 0.0f;
    for (int j = 1; j < cols; j++) { float d = x[row * cols + j] - mean; q += d * d; }
    y[row] = q;
  }
}
