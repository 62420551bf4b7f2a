// Thread-per-row variance with the squared deviation written (v - mean) * (v - mean).
__global__ void rowvar(const float *x, float *var, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = 0; j < cols; j++) sum += x[row * cols + j];
    float mean = sum / cols;
    float m2 = 0.0f;
    for (int j = 0; j < cols; j++) m2 += (x[row * cols + j] - mean) * (x[row * cols + j] - mean);
    var[row] = m2 / cols;
  }
}
