// A thread-per-row mean and variance in two loops, then a normalising map: three sweeps over x of
// the same range; row_cache (registers only) keeps the first one's steps for both later sweeps.
#define COLS_MAX 4096
__global__ void __launch_bounds__(256) normalize(const float *__restrict__ x, float *__restrict__ y, int rows, int cols) {
  // krewrite row_cache: one block of 256 threads per row; each row loop strided over the row's threads
  // row_cache: x's row on chip, each thread's first 4 steps of 4 in registers, the next 0 elements in shared memory
  float kr_row[4][4];
  extern __shared__ __align__(16) unsigned char kr_dynamic_shared[];
  float *kr_row_shared = reinterpret_cast<float *>(kr_dynamic_shared);
  __shared__ float s_part[8];
  __shared__ float q_part[8];
  int r = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int c = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[(size_t)r * cols + c]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(cols) - kr_vbeg - kr_head >= 1024) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(cols) - kr_vbeg) / 4 * 4;
    }
  }
  const bool kr_row_fits = kr_vend - kr_vbeg <= 4096;   // row_cache: the row's steps fit in registers and shared memory
  for (int c = (int)((0) + kr_lane); c < kr_vbeg; c += 256) {
    s += x[(size_t)r * cols + c];
  }
  // row_cache: each thread's steps of x kept on chip for the later sweeps
  #pragma unroll
  for (int kr_m = 0; kr_m < 4; kr_m++) {
    const int kr_j0 = (int)(kr_vbeg + kr_lane * 4 + kr_m * 1024);
    if (kr_j0 < kr_vend) {
      float kr_x[4];
      uint4 kr_word;
      {
        const int c = kr_j0;
        kr_word = reinterpret_cast<const uint4 *>(&(x[(size_t)r * cols + c]))[0];
        memcpy(&kr_x[0], &kr_word, 16);
        memcpy(&kr_row[kr_m][0], &kr_x[0], 16);   // row_cache: kept in registers
      }
      #pragma unroll
      for (int kr_k = 0; kr_k < 4; kr_k++) {
        s += kr_x[kr_k];
      }
    }
  }
  for (int kr_j0_1 = (int)(kr_vbeg + kr_lane * 4 + 4096); kr_j0_1 < kr_vend; kr_j0_1 += 4096) {   // 4 steps at a time, their loads first
    uint4 kr_pre[4][1];
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      if (kr_j0_1 + kr_u * 1024 < kr_vend) {
        const int c = kr_j0_1 + kr_u * 1024;
        kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(x[(size_t)r * cols + c]))[0];
      }
    }
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      const int kr_ju = kr_j0_1 + kr_u * 1024;
      if (kr_ju < kr_vend) {
        float kr_x[4];
        uint4 kr_word_1;
        {
          kr_word_1 = kr_pre[kr_u][0];
          memcpy(&kr_x[0], &kr_word_1, 16);
          if (kr_row_fits) {   // row_cache: kept in shared memory
            memcpy(&kr_word_1, &kr_x[0], 16);
            reinterpret_cast<uint4 *>(&kr_row_shared[kr_ju - kr_vbeg - 4096])[0] = kr_word_1;
          }
        }
        #pragma unroll
        for (int kr_k = 0; kr_k < 4; kr_k++) {
          s += kr_x[kr_k];
        }
      }
    }
  }
  #pragma unroll 4
  for (int c = (int)(kr_vend + kr_lane); c < cols; c += 256) {
    s += x[(size_t)r * cols + c];
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float s_other = __shfl_down_sync(0xffffffffu, s, kr_offset);
    s = s + s_other;
  }
  if (kr_lane % 32 == 0) {
    s_part[kr_lane / 32] = s;
  }
  __syncthreads();
  s = s_part[0];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float s_other_1 = s_part[kr_warp];
    s = s + s_other_1;
  }
  float mean = s / cols;
  float q = 0.0f;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(0), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int c = 0;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(x[(size_t)r * cols + c]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address_1 % 4 == 0 && (long long)(cols) - kr_vbeg_1 - kr_head_1 >= 1024) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(cols) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int c = (int)((0) + kr_lane); c < kr_vbeg_1; c += 256) {
    float d = x[(size_t)r * cols + c] - mean;
    q += d * d;
  }
  if (kr_row_fits && kr_vbeg_1 == kr_vbeg && kr_vend_1 == kr_vend) {   // row_cache: the steps the first sweep kept
    #pragma unroll
    for (int kr_m_1 = 0; kr_m_1 < 4; kr_m_1++) {
      const int kr_j0_2 = (int)(kr_vbeg_1 + kr_lane * 4 + kr_m_1 * 1024);
      if (kr_j0_2 < kr_vend_1) {
        float kr_x_1[4];
        {
          memcpy(&kr_x_1[0], &kr_row[kr_m_1][0], 16);   // row_cache: from registers
        }
        #pragma unroll
        for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
          float d = kr_x_1[kr_k_1] - mean;
          q += d * d;
        }
      }
    }
  } else {
    for (int kr_j0_3 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_3 < kr_vend_1; kr_j0_3 += 4096) {   // 4 steps at a time, their loads first
      uint4 kr_pre_1[4][1];
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        if (kr_j0_3 + kr_u_1 * 1024 < kr_vend_1) {
          const int c = kr_j0_3 + kr_u_1 * 1024;
          kr_pre_1[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(x[(size_t)r * cols + c]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        const int kr_ju_1 = kr_j0_3 + kr_u_1 * 1024;
        if (kr_ju_1 < kr_vend_1) {
          float kr_x_1[4];
          uint4 kr_word_3;
          {
            kr_word_3 = kr_pre_1[kr_u_1][0];
            memcpy(&kr_x_1[0], &kr_word_3, 16);
          }
          #pragma unroll
          for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
            float d = kr_x_1[kr_k_1] - mean;
            q += d * d;
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int c = (int)(kr_vend_1 + kr_lane); c < cols; c += 256) {
    float d = x[(size_t)r * cols + c] - mean;
    q += d * d;
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float q_other = __shfl_down_sync(0xffffffffu, q, kr_offset);
    q = q + q_other;
  }
  if (kr_lane % 32 == 0) {
    q_part[kr_lane / 32] = q;
  }
  __syncthreads();
  q = q_part[0];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float q_other_1 = q_part[kr_warp];
    q = q + q_other_1;
  }
  float inv = rsqrtf(q / cols + 1e-5f);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_2 = (long long)(0), kr_vend_2 = kr_vbeg_2;   // the 16-byte steps: [kr_vbeg_2, kr_vend_2)
  {
    const int c = 0;
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(y[(size_t)r * cols + c]);
    const long long kr_head_2 = (long long)((16 - (kr_address_2 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_3 = (unsigned long long)(const void *)&(x[(size_t)r * cols + c]);
    if (kr_address_2 % 4 == 0 && kr_address_3 % 4 == 0 && (long long)((16 - (kr_address_3 & 15)) & 15) / 4 == kr_head_2 && (long long)(cols) - kr_vbeg_2 - kr_head_2 >= 1024) {
      kr_vbeg_2 += kr_head_2;
      kr_vend_2 = kr_vbeg_2 + ((long long)(cols) - kr_vbeg_2) / 4 * 4;
    }
  }
  for (int c = (int)((0) + kr_lane); c < kr_vbeg_2; c += 256) {
    y[(size_t)r * cols + c] = (x[(size_t)r * cols + c] - mean) * inv;
  }
  if (kr_row_fits && kr_vbeg_2 == kr_vbeg && kr_vend_2 == kr_vend) {   // row_cache: the steps the first sweep kept
    #pragma unroll
    for (int kr_m_2 = 0; kr_m_2 < 4; kr_m_2++) {
      const int kr_j0_4 = (int)(kr_vbeg_2 + kr_lane * 4 + kr_m_2 * 1024);
      if (kr_j0_4 < kr_vend_2) {
        float kr_y[4];
        float kr_x_2[4];
        uint4 kr_word_4;
        {
          memcpy(&kr_x_2[0], &kr_row[kr_m_2][0], 16);   // row_cache: from registers
        }
        #pragma unroll
        for (int kr_k_2 = 0; kr_k_2 < 4; kr_k_2++) {
          kr_y[kr_k_2] = (kr_x_2[kr_k_2] - mean) * inv;
        }
        {
          const int c = kr_j0_4;
          memcpy(&kr_word_4, &kr_y[0], 16);
          reinterpret_cast<uint4 *>(&(y[(size_t)r * cols + c]))[0] = kr_word_4;
        }
      }
    }
  } else {
    for (int kr_j0_5 = (int)(kr_vbeg_2 + kr_lane * 4); kr_j0_5 < kr_vend_2; kr_j0_5 += 4096) {   // 4 steps at a time, their loads first
      uint4 kr_pre_2[4][1];
      #pragma unroll
      for (int kr_u_2 = 0; kr_u_2 < 4; kr_u_2++) {
        if (kr_j0_5 + kr_u_2 * 1024 < kr_vend_2) {
          const int c = kr_j0_5 + kr_u_2 * 1024;
          kr_pre_2[kr_u_2][0] = reinterpret_cast<const uint4 *>(&(x[(size_t)r * cols + c]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_2 = 0; kr_u_2 < 4; kr_u_2++) {
        const int kr_ju_2 = kr_j0_5 + kr_u_2 * 1024;
        if (kr_ju_2 < kr_vend_2) {
          float kr_y[4];
          float kr_x_2[4];
          uint4 kr_word_5;
          {
            kr_word_5 = kr_pre_2[kr_u_2][0];
            memcpy(&kr_x_2[0], &kr_word_5, 16);
          }
          #pragma unroll
          for (int kr_k_2 = 0; kr_k_2 < 4; kr_k_2++) {
            kr_y[kr_k_2] = (kr_x_2[kr_k_2] - mean) * inv;
          }
          {
            const int c = kr_ju_2;
            memcpy(&kr_word_5, &kr_y[0], 16);
            reinterpret_cast<uint4 *>(&(y[(size_t)r * cols + c]))[0] = kr_word_5;
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int c = (int)(kr_vend_2 + kr_lane); c < cols; c += 256) {
    y[(size_t)r * cols + c] = (x[(size_t)r * cols + c] - mean) * inv;
  }
}
