// Thread-per-row softmax, the maximum as fmaxf(v, m), the sum of __expf written s = s + e.
__global__ void __launch_bounds__(256) smx(const float *x, float *y, int rows, int n) {
  // krewrite online_softmax: one block of 256 threads per row; each row loop strided over the row's threads
  __shared__ float m_part[8];
  __shared__ float s_part[8];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  float s = 0.0f;
  // online_softmax: the maximum and the sum of __expf(v - max) in one sweep, the sum rescaled when the maximum grows
  #pragma unroll 4
  for (int j = kr_lane; j < n; j += 256) {
    float kr_v = x[j + row * n];
    float kr_e = __expf(-fabsf(kr_v - m));
    if (kr_v > m) {
      s = s * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      s += kr_e;
    }
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    float s_other = __shfl_down_sync(0xffffffffu, s, kr_offset);
    float kr_max = fmaxf(m, m_other);
    s = (m == -INFINITY ? 0 : s * __expf(m - kr_max)) + (m_other == -INFINITY ? 0 : s_other * __expf(m_other - kr_max));
    m = kr_max;
  }
  if (kr_lane % 32 == 0) {
    m_part[kr_lane / 32] = m;
    s_part[kr_lane / 32] = s;
  }
  __syncthreads();
  m = m_part[0];
  s = s_part[0];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float m_other_1 = m_part[kr_warp];
    float s_other_1 = s_part[kr_warp];
    float kr_max_1 = fmaxf(m, m_other_1);
    s = (m == -INFINITY ? 0 : s * __expf(m - kr_max_1)) + (m_other_1 == -INFINITY ? 0 : s_other_1 * __expf(m_other_1 - kr_max_1));
    m = kr_max_1;
  }
  #pragma unroll 4
  for (int j = kr_lane; j < n; j += 256) {
    y[j + row * n] = __expf(x[j + row * n] - m) / s;
  }
}
