// Block-per-row log-sum-exp through a shared-memory tree (blockDim.x >> 1), one result per row.
__global__ void __launch_bounds__(512) lse(const float *x, float *out, int rows, int cols) {
  // krewrite online_softmax: one block of 512 threads per row; each row loop strided over the row's threads
  __shared__ float m_part[16];
  __shared__ float acc_part[16];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  float acc = 0.0f;
  // online_softmax: the maximum and the sum of expf(v - max) in one sweep, the sum rescaled when the maximum grows
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(cols) - kr_vbeg - kr_head >= 2048) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(cols) - kr_vbeg) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 512) {
    float kr_v = x[row * cols + j];
    float kr_e = expf(-fabsf(kr_v - m));
    if (kr_v > m) {
      acc = acc * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      acc += kr_e;
    }
  }
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 8192) {   // 4 steps at a time, their loads first
    uint4 kr_pre[4][1];
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      if (kr_j0 + kr_u * 2048 < kr_vend) {
        const int j = kr_j0 + kr_u * 2048;
        kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
      }
    }
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      const int kr_ju = kr_j0 + kr_u * 2048;
      if (kr_ju < kr_vend) {
        float kr_x[4];
        uint4 kr_word;
        {
          kr_word = kr_pre[kr_u][0];
          memcpy(&kr_x[0], &kr_word, 16);
        }
        #pragma unroll
        for (int kr_k = 0; kr_k < 4; kr_k++) {
          float kr_v = kr_x[kr_k];
          float kr_e = expf(-fabsf(kr_v - m));
          if (kr_v > m) {
            acc = acc * kr_e + 1.0f;
            m = kr_v;
          } else if (kr_v > -INFINITY) {
            acc += kr_e;
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < cols; j += 512) {
    float kr_v = x[row * cols + j];
    float kr_e = expf(-fabsf(kr_v - m));
    if (kr_v > m) {
      acc = acc * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      acc += kr_e;
    }
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    float acc_other = __shfl_down_sync(0xffffffffu, acc, kr_offset);
    float kr_max = fmaxf(m, m_other);
    acc = (m == -INFINITY ? 0 : acc * expf(m - kr_max)) + (m_other == -INFINITY ? 0 : acc_other * expf(m_other - kr_max));
    m = kr_max;
  }
  if (kr_lane % 32 == 0) {
    m_part[kr_lane / 32] = m;
    acc_part[kr_lane / 32] = acc;
  }
  __syncthreads();
  m = m_part[0];
  acc = acc_part[0];
  for (int kr_warp = 1; kr_warp < 16; kr_warp++) {
    float m_other_1 = m_part[kr_warp];
    float acc_other_1 = acc_part[kr_warp];
    float kr_max_1 = fmaxf(m, m_other_1);
    acc = (m == -INFINITY ? 0 : acc * expf(m - kr_max_1)) + (m_other_1 == -INFINITY ? 0 : acc_other_1 * expf(m_other_1 - kr_max_1));
    m = kr_max_1;
  }
  float mx = m;
  if (kr_lane == 0) {
    out[row] = mx + logf(acc);
  }
}
