// The consumer adds a bias per column over a 2-D grid: its element is (r, c), not one index, so it
// cannot be placed at the producer's element.
__global__ void scale_rows(int R, int C, const float *A, const float *s, float *t) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < R * C) {
    t[idx] = A[idx] * s[idx];
  }
}

__global__ void add_col_bias(int R, int C, const float *bias, float *t) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < R && c < C) t[r * C + c] += bias[c];
}
