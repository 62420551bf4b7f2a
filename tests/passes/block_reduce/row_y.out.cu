// block_reduce on a block-per-row softmax whose row is blockIdx.y (a grid of (1, rows), no guard).
#include <math.h>

__global__ void __launch_bounds__(128) softmax_y(const float *x, float *y, int n) {
  // krewrite block_reduce: one block of 128 threads per row; each row loop strided over the row's threads
  __shared__ float m_part[4];
  __shared__ float sum_part[4];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  float m = -INFINITY;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * n + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(n) - kr_vbeg - kr_head >= 512) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(n) - kr_vbeg) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 128) {
    m = fmaxf(m, x[row * n + j]);
  }
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 2048) {   // 4 steps at a time, their loads first
    uint4 kr_pre[4][1];
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      if (kr_j0 + kr_u * 512 < kr_vend) {
        const int j = kr_j0 + kr_u * 512;
        kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(x[row * n + j]))[0];
      }
    }
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      const int kr_ju = kr_j0 + kr_u * 512;
      if (kr_ju < kr_vend) {
        float kr_x[4];
        uint4 kr_word;
        {
          kr_word = kr_pre[kr_u][0];
          memcpy(&kr_x[0], &kr_word, 16);
        }
        #pragma unroll
        for (int kr_k = 0; kr_k < 4; kr_k++) {
          m = fmaxf(m, kr_x[kr_k]);
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < n; j += 128) {
    m = fmaxf(m, x[row * n + j]);
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    m = fmaxf(m, m_other);
  }
  if (kr_lane % 32 == 0) {
    m_part[kr_lane / 32] = m;
  }
  __syncthreads();
  m = m_part[0];
  for (int kr_warp = 1; kr_warp < 4; kr_warp++) {
    float m_other_1 = m_part[kr_warp];
    m = fmaxf(m, m_other_1);
  }
  float mx = m;
  float sum = 0.0f;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(0), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = 0;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(x[row * n + j]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address_1 % 4 == 0 && (long long)(n) - kr_vbeg_1 - kr_head_1 >= 512) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(n) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg_1; j += 128) {
    sum += expf(x[row * n + j] - mx);
  }
  for (int kr_j0_1 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_1 < kr_vend_1; kr_j0_1 += 2048) {   // 4 steps at a time, their loads first
    uint4 kr_pre_1[4][1];
    #pragma unroll
    for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
      if (kr_j0_1 + kr_u_1 * 512 < kr_vend_1) {
        const int j = kr_j0_1 + kr_u_1 * 512;
        kr_pre_1[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(x[row * n + j]))[0];
      }
    }
    #pragma unroll
    for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
      const int kr_ju_1 = kr_j0_1 + kr_u_1 * 512;
      if (kr_ju_1 < kr_vend_1) {
        float kr_x_1[4];
        uint4 kr_word_1;
        {
          kr_word_1 = kr_pre_1[kr_u_1][0];
          memcpy(&kr_x_1[0], &kr_word_1, 16);
        }
        #pragma unroll
        for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
          sum += expf(kr_x_1[kr_k_1] - mx);
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_1 + kr_lane); j < n; j += 128) {
    sum += expf(x[row * n + j] - mx);
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float sum_other = __shfl_down_sync(0xffffffffu, sum, kr_offset);
    sum = sum + sum_other;
  }
  if (kr_lane % 32 == 0) {
    sum_part[kr_lane / 32] = sum;
  }
  __syncthreads();
  sum = sum_part[0];
  for (int kr_warp = 1; kr_warp < 4; kr_warp++) {
    float sum_other_1 = sum_part[kr_warp];
    sum = sum + sum_other_1;
  }
  float total = sum;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_2 = (long long)(0), kr_vend_2 = kr_vbeg_2;   // the 16-byte steps: [kr_vbeg_2, kr_vend_2)
  {
    const int j = 0;
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(y[row * n + j]);
    const long long kr_head_2 = (long long)((16 - (kr_address_2 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_3 = (unsigned long long)(const void *)&(x[row * n + j]);
    if (kr_address_2 % 4 == 0 && kr_address_3 % 4 == 0 && (long long)((16 - (kr_address_3 & 15)) & 15) / 4 == kr_head_2 && (long long)(n) - kr_vbeg_2 - kr_head_2 >= 512) {
      kr_vbeg_2 += kr_head_2;
      kr_vend_2 = kr_vbeg_2 + ((long long)(n) - kr_vbeg_2) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg_2; j += 128) {
    y[row * n + j] = expf(x[row * n + j] - mx) / total;
  }
  for (int kr_j0_2 = (int)(kr_vbeg_2 + kr_lane * 4); kr_j0_2 < kr_vend_2; kr_j0_2 += 2048) {   // 4 steps at a time, their loads first
    uint4 kr_pre_2[4][1];
    #pragma unroll
    for (int kr_u_2 = 0; kr_u_2 < 4; kr_u_2++) {
      if (kr_j0_2 + kr_u_2 * 512 < kr_vend_2) {
        const int j = kr_j0_2 + kr_u_2 * 512;
        kr_pre_2[kr_u_2][0] = reinterpret_cast<const uint4 *>(&(x[row * n + j]))[0];
      }
    }
    #pragma unroll
    for (int kr_u_2 = 0; kr_u_2 < 4; kr_u_2++) {
      const int kr_ju_2 = kr_j0_2 + kr_u_2 * 512;
      if (kr_ju_2 < kr_vend_2) {
        float kr_y[4];
        float kr_x_2[4];
        uint4 kr_word_2;
        {
          kr_word_2 = kr_pre_2[kr_u_2][0];
          memcpy(&kr_x_2[0], &kr_word_2, 16);
        }
        #pragma unroll
        for (int kr_k_2 = 0; kr_k_2 < 4; kr_k_2++) {
          kr_y[kr_k_2] = expf(kr_x_2[kr_k_2] - mx) / total;
        }
        {
          const int j = kr_ju_2;
          memcpy(&kr_word_2, &kr_y[0], 16);
          reinterpret_cast<uint4 *>(&(y[row * n + j]))[0] = kr_word_2;
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_2 + kr_lane); j < n; j += 128) {
    y[row * n + j] = expf(x[row * n + j] - mx) / total;
  }
}
