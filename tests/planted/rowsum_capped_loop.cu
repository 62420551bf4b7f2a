// tests/planted/rowsum_capped_loop.cu (class 8; specs/rowsum): the loop stops at 256 columns;
// right at every test size (at most 255 columns), wrong at the benchmark size (8192).
__global__ void rowsum(int rows, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = 0; j < cols && j < 256; j++) s += x[(long)r * cols + j];
  out[r] = s;
}
