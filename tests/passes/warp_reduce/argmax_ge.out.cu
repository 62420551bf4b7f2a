// Arg-max with >=: the last index of the maximum; min of the row also kept (two loops).
__global__ void __launch_bounds__(64) lastmax(const float *x, int *arg, float *lo, int rows, int cols) {
  // krewrite warp_reduce: one warp per row, 2 rows per block; each row loop strided over the row's threads
  int row = blockIdx.x * 2 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= rows) return;   // a whole warp: its row is past the last
  float m = -INFINITY;
  int a = 0;
  int m_seen = 0;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 32) {
    if (x[row * cols + j] >= m) {
      m = x[row * cols + j];
      a = j;
      m_seen = 1;
    }
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    int a_other = __shfl_down_sync(0xffffffffu, a, kr_offset);
    int m_seen_other = __shfl_down_sync(0xffffffffu, m_seen, kr_offset);
    if (m_seen_other && (!m_seen || m_other > m || (m_other == m && a_other > a))) {
      m = m_other;
      a = a_other;
      m_seen = 1;
    }
  }
  m = __shfl_sync(0xffffffffu, m, 0);
  a = __shfl_sync(0xffffffffu, a, 0);
  m_seen = __shfl_sync(0xffffffffu, m_seen, 0);
  float mn = INFINITY;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 32) {
    mn = fminf(mn, x[row * cols + j]);
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float mn_other = __shfl_down_sync(0xffffffffu, mn, kr_offset);
    mn = fminf(mn, mn_other);
  }
  mn = __shfl_sync(0xffffffffu, mn, 0);
  if (kr_lane == 0) {
    arg[row] = a;
  }
  if (kr_lane == 0) {
    lo[row] = mn;
  }
}
