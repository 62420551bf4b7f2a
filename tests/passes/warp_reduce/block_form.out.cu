// A block-per-row max through shared memory (blockDim.x >> 1), then rows as warps.
__global__ void __launch_bounds__(256) rowmax_blk(const float *x, float *out, int rows, int cols) {
  // krewrite warp_reduce: one warp per row, 8 rows per block; each row loop strided over the row's threads
  int row = blockIdx.x * 8 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= rows) return;   // a whole warp: its row is past the last
  float m = -INFINITY;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 32) {
    m = fmaxf(m, x[row * cols + j]);
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    m = fmaxf(m, m_other);
  }
  m = __shfl_sync(0xffffffffu, m, 0);
  if (kr_lane == 0) {
    out[row] = m;
  }
}
