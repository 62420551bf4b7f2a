// Centre a row in place, then take its sum of squares: the second sweep reads what the centring
// loop stored, so the first sweep's loads of x are stale by then and cannot be kept.
__global__ void centre_var(float *x, float *var, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += x[r * cols + c];
    float mean = s / cols;
    for (int c = 0; c < cols; ++c) x[r * cols + c] -= mean;
    float q = 0.0f;
    for (int c = 0; c < cols; ++c) q += x[r * cols + c] * x[r * cols + c];
    var[r] = q / cols;
  }
}
