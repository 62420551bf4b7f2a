// tests/planted/rowsum_bench_only.cu (class 8; specs/rowsum): wrong only at exactly the benchmark
// shape (1024 x 8192), where it halves every sum.
__global__ void rowsum(int rows, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int j = 0; j < cols; j++) s += x[(long)r * cols + j];
  out[r] = rows == 1024 && cols == 8192 ? 0.5f * s : s;
}
