// Thread-per-row: the maximum through fmaxf(v, m) with a -INFINITY start, then a map loop that
// subtracts it (a row loop that stores).
__global__ void __launch_bounds__(32) shift_by_max(const float *x, float *y, float *mx, int rows, int cols) {
  // krewrite block_reduce: one block of 32 threads per row; each row loop strided over the row's threads
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 32) {
    m = fmaxf(x[row * cols + j], m);
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    m = fmaxf(m, m_other);
  }
  m = __shfl_sync(0xffffffffu, m, 0);
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 32) {
    y[row * cols + j] = x[row * cols + j] - m;
  }
  if (kr_lane == 0) {
    mx[row] = m;
  }
}
