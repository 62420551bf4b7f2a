// Thread-per-row softmax, the maximum as fmaxf(v, m), the sum of __expf written s = s + e.
__global__ void __launch_bounds__(64) smx(const float *x, float *y, int rows, int n) {
  // krewrite online_softmax: one warp per row, 2 rows per block; each row loop strided over the row's threads
  int row = blockIdx.x * 2 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= rows) return;   // a whole warp: its row is past the last
  float m = -INFINITY;
  float s = 0.0f;
  // online_softmax: the maximum and the sum of __expf(v - max) in one sweep, the sum rescaled when the maximum grows
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[j + row * n]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(n) - kr_vbeg - kr_head >= 128) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(n) - kr_vbeg) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 32) {
    float kr_v = x[j + row * n];
    float kr_e = __expf(-fabsf(kr_v - m));
    if (kr_v > m) {
      s = s * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      s += kr_e;
    }
  }
  #pragma unroll 2
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 128) {
    float kr_x[4];
    uint4 kr_word;
    {
      const int j = kr_j0;
      kr_word = reinterpret_cast<const uint4 *>(&(x[j + row * n]))[0];
      memcpy(&kr_x[0], &kr_word, 16);
    }
    #pragma unroll
    for (int kr_k = 0; kr_k < 4; kr_k++) {
      float kr_v = kr_x[kr_k];
      float kr_e = __expf(-fabsf(kr_v - m));
      if (kr_v > m) {
        s = s * kr_e + 1.0f;
        m = kr_v;
      } else if (kr_v > -INFINITY) {
        s += kr_e;
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < n; j += 32) {
    float kr_v = x[j + row * n];
    float kr_e = __expf(-fabsf(kr_v - m));
    if (kr_v > m) {
      s = s * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      s += kr_e;
    }
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    float s_other = __shfl_down_sync(0xffffffffu, s, kr_offset);
    float kr_max = fmaxf(m, m_other);
    s = (m == -INFINITY ? 0 : s * __expf(m - kr_max)) + (m_other == -INFINITY ? 0 : s_other * __expf(m_other - kr_max));
    m = kr_max;
  }
  m = __shfl_sync(0xffffffffu, m, 0);
  s = __shfl_sync(0xffffffffu, s, 0);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(0), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = 0;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(y[j + row * n]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(x[j + row * n]);
    if (kr_address_1 % 4 == 0 && kr_address_2 % 4 == 0 && (long long)((16 - (kr_address_2 & 15)) & 15) / 4 == kr_head_1 && (long long)(n) - kr_vbeg_1 - kr_head_1 >= 128) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(n) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg_1; j += 32) {
    y[j + row * n] = __expf(x[j + row * n] - m) / s;
  }
  #pragma unroll 2
  for (int kr_j0_1 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_1 < kr_vend_1; kr_j0_1 += 128) {
    float kr_y[4];
    float kr_x_1[4];
    uint4 kr_word_1;
    {
      const int j = kr_j0_1;
      kr_word_1 = reinterpret_cast<const uint4 *>(&(x[j + row * n]))[0];
      memcpy(&kr_x_1[0], &kr_word_1, 16);
    }
    #pragma unroll
    for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
      kr_y[kr_k_1] = __expf(kr_x_1[kr_k_1] - m) / s;
    }
    {
      const int j = kr_j0_1;
      memcpy(&kr_word_1, &kr_y[0], 16);
      reinterpret_cast<uint4 *>(&(y[j + row * n]))[0] = kr_word_1;
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_1 + kr_lane); j < n; j += 32) {
    y[j + row * n] = __expf(x[j + row * n] - m) / s;
  }
}
