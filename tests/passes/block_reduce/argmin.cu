// Thread-per-row arg-min with a strict <: the first index of the minimum.
__global__ void rowargmin(const float *x, int *idx, float *val, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float best = INFINITY;
    int at = -1;
    for (int j = 0; j < cols; j++) {
      float v = x[row * cols + j];
      if (v < best) {
        best = v;
        at = j;
      }
    }
    idx[row] = at;
    val[row] = best;
  }
}
