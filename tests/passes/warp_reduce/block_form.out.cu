// A block-per-row max through shared memory (blockDim.x >> 1), then rows as warps.
__global__ void __launch_bounds__(256) rowmax_blk(const float *x, float *out, int rows, int cols) {
  // krewrite warp_reduce: one warp per row, 8 rows per block; each row loop strided over the row's threads
  int row = blockIdx.x * 8 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= rows) return;   // a whole warp: its row is past the last
  float m = -INFINITY;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(cols) - kr_vbeg - kr_head >= 128) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(cols) - kr_vbeg) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 32) {
    m = fmaxf(m, x[row * cols + j]);
  }
  #pragma unroll 2
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 128) {
    float kr_x[4];
    uint4 kr_word;
    {
      const int j = kr_j0;
      kr_word = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
      memcpy(&kr_x[0], &kr_word, 16);
    }
    #pragma unroll
    for (int kr_k = 0; kr_k < 4; kr_k++) {
      m = fmaxf(m, kr_x[kr_k]);
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < cols; j += 32) {
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
