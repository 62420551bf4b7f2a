// Thread-per-row softmax, the maximum as fmaxf(v, m), the sum of __expf written s = s + e.
__global__ void __launch_bounds__(64) smx(const float *x, float *y, int rows, int n) {
  // krewrite online_softmax: one warp per row, 2 rows per block; each row loop strided over the row's threads
  int row = blockIdx.x * 2 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= rows) return;   // a whole warp: its row is past the last
  float m = -INFINITY;
  float s = 0.0f;
  // online_softmax: the maximum and the sum of __expf(v - max) in one sweep, the sum rescaled when the maximum grows
  #pragma unroll 4
  for (int j = kr_lane; j < n; j += 32) {
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
  #pragma unroll 4
  for (int j = kr_lane; j < n; j += 32) {
    y[j + row * n] = __expf(x[j + row * n] - m) / s;
  }
}
