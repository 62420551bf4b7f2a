// Arg-max with >=: the last index of the maximum; min of the row also kept (two loops).
__global__ void __launch_bounds__(64) lastmax(const float *x, int *arg, float *lo, int rows, int cols) {
  // krewrite warp_reduce: one warp per row, 2 rows per block; each row loop strided over the row's threads
  int row = blockIdx.x * 2 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= rows) return;   // a whole warp: its row is past the last
  float m = -INFINITY;
  int a = 0;
  int m_seen = 0;
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
    if (x[row * cols + j] >= m) {
      m = x[row * cols + j];
      a = j;
      m_seen = 1;
    }
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
      const int j = kr_j0 + kr_k;
      if (kr_x[kr_k] >= m) {
        m = kr_x[kr_k];
        a = j;
        m_seen = 1;
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < cols; j += 32) {
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
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(0), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = 0;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address_1 % 4 == 0 && (long long)(cols) - kr_vbeg_1 - kr_head_1 >= 128) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(cols) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg_1; j += 32) {
    mn = fminf(mn, x[row * cols + j]);
  }
  #pragma unroll 2
  for (int kr_j0_1 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_1 < kr_vend_1; kr_j0_1 += 128) {
    float kr_x_1[4];
    uint4 kr_word_1;
    {
      const int j = kr_j0_1;
      kr_word_1 = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
      memcpy(&kr_x_1[0], &kr_word_1, 16);
    }
    #pragma unroll
    for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
      mn = fminf(mn, kr_x_1[kr_k_1]);
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_1 + kr_lane); j < cols; j += 32) {
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
