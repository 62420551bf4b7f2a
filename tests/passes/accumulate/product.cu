// A product of a row accumulated in place: *= is not a sum, so it cannot be split into a
// register part added once after the loop.
__global__ void rowprod(int rows, int cols, const float *__restrict__ a, float *__restrict__ p) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int j = 0; j < cols; ++j) {
    p[r] *= a[(size_t)r * cols + j];
  }
}
