// tests/planted/specs/rowsum.cu: out[r] = the sum of row r of a rows x cols matrix, one thread a
// row, left to right.
__global__ void rowsum(int rows, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = 0; j < cols; j++) s += x[(long)r * cols + j];
  out[r] = s;
}
