#include <cuda_pipeline.h>
// A block-per-row softmax read three times (max, sum of exp, normalise): after block_reduce and
// online_softmax two sweeps remain, and row_cache keeps the first one's steps of x for the second.
__global__ void __launch_bounds__(512) softmax(const float *x, float *y, int rows, int cols) {
  // krewrite row_cache: one block of 512 threads per row; each row loop strided over the row's threads
  // row_cache: x's row on chip, each thread's first 4 steps of 4 in registers, the next 24576 elements in shared memory
  float kr_row[4][4];
  extern __shared__ __align__(16) unsigned char kr_dynamic_shared[];
  float *kr_row_shared = reinterpret_cast<float *>(kr_dynamic_shared);
  __shared__ float m_part[16];
  __shared__ float sum_part[16];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  float sum = 0.0f;
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
  const bool kr_row_fits = kr_vend - kr_vbeg <= 32768;   // row_cache: the row's steps fit in registers and shared memory
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 512) {
    float kr_v = x[row * cols + j];
    float kr_e = expf(-fabsf(kr_v - m));
    if (kr_v > m) {
      sum = sum * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      sum += kr_e;
    }
  }
  // row_cache: each thread's steps of x kept on chip for the later sweeps
  if (kr_row_fits) {   // row_cache: the steps past the registers' copied straight to shared memory (cp.async), all in flight before the first is used
    for (int kr_j0_1 = (int)(kr_vbeg + kr_lane * 4 + 8192); kr_j0_1 < kr_vend; kr_j0_1 += 2048) {
      const int j = kr_j0_1;
      __pipeline_memcpy_async(&reinterpret_cast<uint4 *>(&kr_row_shared[kr_j0_1 - kr_vbeg - 8192])[0], &reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0], 16);
    }
    __pipeline_commit();
  }
  #pragma unroll
  for (int kr_m = 0; kr_m < 4; kr_m++) {
    const int kr_j0 = (int)(kr_vbeg + kr_lane * 4 + kr_m * 2048);
    if (kr_j0 < kr_vend) {
      float kr_x[4];
      uint4 kr_word;
      {
        const int j = kr_j0;
        kr_word = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        memcpy(&kr_x[0], &kr_word, 16);
        memcpy(&kr_row[kr_m][0], &kr_x[0], 16);   // row_cache: kept in registers
      }
      #pragma unroll
      for (int kr_k = 0; kr_k < 4; kr_k++) {
        float kr_v = kr_x[kr_k];
        float kr_e = expf(-fabsf(kr_v - m));
        if (kr_v > m) {
          sum = sum * kr_e + 1.0f;
          m = kr_v;
        } else if (kr_v > -INFINITY) {
          sum += kr_e;
        }
      }
    }
  }
  if (kr_row_fits) {
    __pipeline_wait_prior(0);   // row_cache: this thread's copies arrived
    #pragma unroll 4
    for (int kr_j0_2 = (int)(kr_vbeg + kr_lane * 4 + 8192); kr_j0_2 < kr_vend; kr_j0_2 += 2048) {
      float kr_x[4];
      uint4 kr_word_1;
      {
        kr_word_1 = reinterpret_cast<const uint4 *>(&kr_row_shared[kr_j0_2 - kr_vbeg - 8192])[0];   // row_cache: from shared memory
        memcpy(&kr_x[0], &kr_word_1, 16);
      }
      #pragma unroll
      for (int kr_k = 0; kr_k < 4; kr_k++) {
        float kr_v = kr_x[kr_k];
        float kr_e = expf(-fabsf(kr_v - m));
        if (kr_v > m) {
          sum = sum * kr_e + 1.0f;
          m = kr_v;
        } else if (kr_v > -INFINITY) {
          sum += kr_e;
        }
      }
    }
  } else {
    for (int kr_j0_3 = (int)(kr_vbeg + kr_lane * 4 + 8192); kr_j0_3 < kr_vend; kr_j0_3 += 8192) {   // 4 steps at a time, their loads first
      uint4 kr_pre[4][1];
      #pragma unroll
      for (int kr_u = 0; kr_u < 4; kr_u++) {
        if (kr_j0_3 + kr_u * 2048 < kr_vend) {
          const int j = kr_j0_3 + kr_u * 2048;
          kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        }
      }
      #pragma unroll
      for (int kr_u = 0; kr_u < 4; kr_u++) {
        const int kr_ju = kr_j0_3 + kr_u * 2048;
        if (kr_ju < kr_vend) {
          float kr_x[4];
          uint4 kr_word_2;
          {
            kr_word_2 = kr_pre[kr_u][0];
            memcpy(&kr_x[0], &kr_word_2, 16);
          }
          #pragma unroll
          for (int kr_k = 0; kr_k < 4; kr_k++) {
            float kr_v = kr_x[kr_k];
            float kr_e = expf(-fabsf(kr_v - m));
            if (kr_v > m) {
              sum = sum * kr_e + 1.0f;
              m = kr_v;
            } else if (kr_v > -INFINITY) {
              sum += kr_e;
            }
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
      sum = sum * kr_e + 1.0f;
      m = kr_v;
    } else if (kr_v > -INFINITY) {
      sum += kr_e;
    }
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    float sum_other = __shfl_down_sync(0xffffffffu, sum, kr_offset);
    float kr_max = fmaxf(m, m_other);
    sum = (m == -INFINITY ? 0 : sum * expf(m - kr_max)) + (m_other == -INFINITY ? 0 : sum_other * expf(m_other - kr_max));
    m = kr_max;
  }
  if (kr_lane % 32 == 0) {
    m_part[kr_lane / 32] = m;
    sum_part[kr_lane / 32] = sum;
  }
  __syncthreads();
  m = m_part[0];
  sum = sum_part[0];
  for (int kr_warp = 1; kr_warp < 16; kr_warp++) {
    float m_other_1 = m_part[kr_warp];
    float sum_other_1 = sum_part[kr_warp];
    float kr_max_1 = fmaxf(m, m_other_1);
    sum = (m == -INFINITY ? 0 : sum * expf(m - kr_max_1)) + (m_other_1 == -INFINITY ? 0 : sum_other_1 * expf(m_other_1 - kr_max_1));
    m = kr_max_1;
  }
  float mx = m;
  float total = sum;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(0), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = 0;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(y[row * cols + j]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(x[row * cols + j]);
    if (kr_address_1 % 4 == 0 && kr_address_2 % 4 == 0 && (long long)((16 - (kr_address_2 & 15)) & 15) / 4 == kr_head_1 && (long long)(cols) - kr_vbeg_1 - kr_head_1 >= 2048) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(cols) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg_1; j += 512) {
    y[row * cols + j] = expf(x[row * cols + j] - mx) / total;
  }
  if (kr_row_fits && kr_vbeg_1 == kr_vbeg && kr_vend_1 == kr_vend) {   // row_cache: the steps the first sweep kept
    #pragma unroll
    for (int kr_m_1 = 0; kr_m_1 < 4; kr_m_1++) {
      const int kr_j0_4 = (int)(kr_vbeg_1 + kr_lane * 4 + kr_m_1 * 2048);
      if (kr_j0_4 < kr_vend_1) {
        float kr_y[4];
        float kr_x_1[4];
        uint4 kr_word_3;
        {
          memcpy(&kr_x_1[0], &kr_row[kr_m_1][0], 16);   // row_cache: from registers
        }
        #pragma unroll
        for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
          kr_y[kr_k_1] = expf(kr_x_1[kr_k_1] - mx) / total;
        }
        {
          const int j = kr_j0_4;
          memcpy(&kr_word_3, &kr_y[0], 16);
          reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_3;
        }
      }
    }
    #pragma unroll 4
    for (int kr_j0_5 = (int)(kr_vbeg_1 + kr_lane * 4 + 8192); kr_j0_5 < kr_vend_1; kr_j0_5 += 2048) {
      float kr_y[4];
      float kr_x_1[4];
      uint4 kr_word_4;
      {
        kr_word_4 = reinterpret_cast<const uint4 *>(&kr_row_shared[kr_j0_5 - kr_vbeg_1 - 8192])[0];   // row_cache: from shared memory
        memcpy(&kr_x_1[0], &kr_word_4, 16);
      }
      #pragma unroll
      for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
        kr_y[kr_k_1] = expf(kr_x_1[kr_k_1] - mx) / total;
      }
      {
        const int j = kr_j0_5;
        memcpy(&kr_word_4, &kr_y[0], 16);
        reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_4;
      }
    }
  } else {
    for (int kr_j0_6 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_6 < kr_vend_1; kr_j0_6 += 8192) {   // 4 steps at a time, their loads first
      uint4 kr_pre_1[4][1];
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        if (kr_j0_6 + kr_u_1 * 2048 < kr_vend_1) {
          const int j = kr_j0_6 + kr_u_1 * 2048;
          kr_pre_1[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        const int kr_ju_1 = kr_j0_6 + kr_u_1 * 2048;
        if (kr_ju_1 < kr_vend_1) {
          float kr_y[4];
          float kr_x_1[4];
          uint4 kr_word_5;
          {
            kr_word_5 = kr_pre_1[kr_u_1][0];
            memcpy(&kr_x_1[0], &kr_word_5, 16);
          }
          #pragma unroll
          for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
            kr_y[kr_k_1] = expf(kr_x_1[kr_k_1] - mx) / total;
          }
          {
            const int j = kr_ju_1;
            memcpy(&kr_word_5, &kr_y[0], 16);
            reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_5;
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_1 + kr_lane); j < cols; j += 512) {
    y[row * cols + j] = expf(x[row * cols + j] - mx) / total;
  }
}
