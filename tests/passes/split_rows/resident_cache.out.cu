#include <cuda_pipeline.h>
// Block-per-row layer norm without affine weights, the tree halved with blockDim.x >> 1.
__global__ void __launch_bounds__(128) lnorm(const float *x, float *y, int rows, int cols, float eps, unsigned char *workspace = nullptr) {
  // krewrite row_cache: each row over 16 blocks of 128 threads; each row loop strided over the row's threads
  // row_cache: x's row on chip, each thread's first 2 steps of 4 in registers, the next 2048 elements in shared memory
  float kr_row[2][4];
  extern __shared__ __align__(16) unsigned char kr_dynamic_shared[];
  float *kr_row_shared = reinterpret_cast<float *>(kr_dynamic_shared);
  __shared__ float s_part[4];
  __shared__ float q_part[4];
  // split_rows: each row over up to 16 blocks that run every sweep of their part and meet in the workspace; a block's
  // row and part come from a ticket taken at its start, so a block waits only for its row's other parts, which the GPU holds at once
  const int kr_parts = (int)(gridDim.x / (unsigned int)((rows) > 1 ? (rows) : 1));   // the launch's parts a row (fewer for short rows)
  unsigned int *kr_arrived = reinterpret_cast<unsigned int *>(workspace + (size_t)(rows) * 2 * 16 * 1 * 8);
  unsigned int *kr_read = kr_arrived + (size_t)(rows) * 2, *kr_ticket = kr_arrived + (size_t)(rows) * 4;
  __shared__ unsigned int kr_unit;
  if (threadIdx.x == 0) {
    kr_unit = atomicAdd(kr_ticket, 1u);
    if (kr_unit == gridDim.x - 1) *kr_ticket = 0u;   // every ticket taken: back at zero for the next launch
  }
  __syncthreads();
  const unsigned int kr_u = kr_unit;
  const int kr_part = (int)(kr_u % (unsigned int)kr_parts);
  int row = (int)(kr_u / (unsigned int)kr_parts);
  int kr_lane = threadIdx.x;
  if (row >= rows) return;   // the row's blocks all return
  float s = 0.0f;
  const long long kr_len = (long long)(cols) - (long long)(0);
  const long long kr_chunk = ((kr_len + kr_parts - 1) / kr_parts + 31) / 32 * 32;   // whole warps' worth
  const long long kr_from = (long long)(0) + kr_part * kr_chunk;
  const long long kr_to = kr_from + kr_chunk < (long long)(cols) ? kr_from + kr_chunk : (long long)(cols);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(kr_from), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = kr_from;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(kr_to) - kr_vbeg - kr_head >= 512) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(kr_to) - kr_vbeg) / 4 * 4;
    }
  }
  const bool kr_row_fits = kr_vend - kr_vbeg <= 3072;   // row_cache: the row's steps fit in registers and shared memory
  for (int j = (int)((kr_from) + kr_lane); j < kr_vbeg; j += 128) {
    s += x[row * cols + j];
  }
  // row_cache: each thread's steps of x kept on chip for the later sweeps
  if (kr_row_fits) {   // row_cache: the steps past the registers' copied straight to shared memory (cp.async), all in flight before the first is used
    for (int kr_j0_1 = (int)(kr_vbeg + kr_lane * 4 + 1024); kr_j0_1 < kr_vend; kr_j0_1 += 512) {
      const int j = kr_j0_1;
      __pipeline_memcpy_async(&reinterpret_cast<uint4 *>(&kr_row_shared[kr_j0_1 - kr_vbeg - 1024])[0], &reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0], 16);
    }
    __pipeline_commit();
  }
  #pragma unroll
  for (int kr_m = 0; kr_m < 2; kr_m++) {
    const int kr_j0 = (int)(kr_vbeg + kr_lane * 4 + kr_m * 512);
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
        s += kr_x[kr_k];
      }
    }
  }
  if (kr_row_fits) {
    __pipeline_wait_prior(0);   // row_cache: this thread's copies arrived
    #pragma unroll 4
    for (int kr_j0_2 = (int)(kr_vbeg + kr_lane * 4 + 1024); kr_j0_2 < kr_vend; kr_j0_2 += 512) {
      float kr_x[4];
      uint4 kr_word_1;
      {
        kr_word_1 = reinterpret_cast<const uint4 *>(&kr_row_shared[kr_j0_2 - kr_vbeg - 1024])[0];   // row_cache: from shared memory
        memcpy(&kr_x[0], &kr_word_1, 16);
      }
      #pragma unroll
      for (int kr_k = 0; kr_k < 4; kr_k++) {
        s += kr_x[kr_k];
      }
    }
  } else {
    for (int kr_j0_3 = (int)(kr_vbeg + kr_lane * 4 + 1024); kr_j0_3 < kr_vend; kr_j0_3 += 2048) {   // 4 steps at a time, their loads first
      uint4 kr_pre[4][1];
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        if (kr_j0_3 + kr_u_1 * 512 < kr_vend) {
          const int j = kr_j0_3 + kr_u_1 * 512;
          kr_pre[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        const int kr_ju = kr_j0_3 + kr_u_1 * 512;
        if (kr_ju < kr_vend) {
          float kr_x[4];
          uint4 kr_word_2;
          {
            kr_word_2 = kr_pre[kr_u_1][0];
            memcpy(&kr_x[0], &kr_word_2, 16);
          }
          #pragma unroll
          for (int kr_k = 0; kr_k < 4; kr_k++) {
            s += kr_x[kr_k];
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < kr_to; j += 128) {
    s += x[row * cols + j];
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
  for (int kr_warp = 1; kr_warp < 4; kr_warp++) {
    float s_other_1 = s_part[kr_warp];
    s = s + s_other_1;
  }
  if (threadIdx.x == 0) {
    *reinterpret_cast<float *>(workspace + ((((size_t)row * 2 + 0) * 16 + kr_part) * 1 + 0) * 8) = s;
    __threadfence();
    atomicAdd(&kr_arrived[row * 2 + 0], 1u);
  }
  // split_rows: the row's parts of this reduction, combined in a fixed order once all arrived
  if (threadIdx.x == 0) {
    while (atomicAdd(&kr_arrived[row * 2 + 0], 0u) < (unsigned int)kr_parts) {
      __nanosleep(200);   // poll gently: the parts still walking the row need the memory system
    }
  }
  __syncthreads();
  __threadfence();
  __shared__ float kr_s_row;
  if (threadIdx.x < 32) {   // warp 0: lane l the parts l, l + 32, ... in order, then a shuffle tree
    bool kr_has = (int)threadIdx.x < kr_parts;
    if (kr_has) {
      s = __ldcg(&*reinterpret_cast<float *>(workspace + ((((size_t)row * 2 + 0) * 16 + threadIdx.x) * 1 + 0) * 8));
    }
    for (int kr_p = threadIdx.x + 32; kr_p < kr_parts; kr_p += 32) {
      float s_part_1 = __ldcg(&*reinterpret_cast<float *>(workspace + ((((size_t)row * 2 + 0) * 16 + kr_p) * 1 + 0) * 8));
      s = s + s_part_1;
    }
    for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
      const bool kr_has_other = __shfl_down_sync(0xffffffffu, kr_has, kr_offset) && threadIdx.x + kr_offset < 32;
      float s_other_2 = __shfl_down_sync(0xffffffffu, s, kr_offset);
      if (kr_has_other && kr_has) {
        s = s + s_other_2;
      } else if (kr_has_other) {
        s = s_other_2;
        kr_has = true;
      }
    }
    if (threadIdx.x == 0) {
      kr_s_row = s;
    }
  }
  __syncthreads();
  s = kr_s_row;
  if (threadIdx.x == 0 && atomicAdd(&kr_read[row * 2 + 0], 1u) == (unsigned int)kr_parts - 1u) {   // the last of the row's blocks reading these
    kr_arrived[row * 2 + 0] = 0u;
    kr_read[row * 2 + 0] = 0u;
  }
  float mean = s / cols;
  float q = 0.0f;
  const long long kr_len_1 = (long long)(cols) - (long long)(0);
  const long long kr_chunk_1 = ((kr_len_1 + kr_parts - 1) / kr_parts + 31) / 32 * 32;   // whole warps' worth
  const long long kr_from_1 = (long long)(0) + kr_part * kr_chunk_1;
  const long long kr_to_1 = kr_from_1 + kr_chunk_1 < (long long)(cols) ? kr_from_1 + kr_chunk_1 : (long long)(cols);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(kr_from_1), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = kr_from_1;
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address_1 % 4 == 0 && (long long)(kr_to_1) - kr_vbeg_1 - kr_head_1 >= 512) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(kr_to_1) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int j = (int)((kr_from_1) + kr_lane); j < kr_vbeg_1; j += 128) {
    float d = x[row * cols + j] - mean;
    q += d * d;
  }
  if (kr_row_fits && kr_vbeg_1 == kr_vbeg && kr_vend_1 == kr_vend) {   // row_cache: the steps the first sweep kept
    #pragma unroll
    for (int kr_m_1 = 0; kr_m_1 < 2; kr_m_1++) {
      const int kr_j0_4 = (int)(kr_vbeg_1 + kr_lane * 4 + kr_m_1 * 512);
      if (kr_j0_4 < kr_vend_1) {
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
    #pragma unroll 4
    for (int kr_j0_5 = (int)(kr_vbeg_1 + kr_lane * 4 + 1024); kr_j0_5 < kr_vend_1; kr_j0_5 += 512) {
      float kr_x_1[4];
      uint4 kr_word_4;
      {
        kr_word_4 = reinterpret_cast<const uint4 *>(&kr_row_shared[kr_j0_5 - kr_vbeg_1 - 1024])[0];   // row_cache: from shared memory
        memcpy(&kr_x_1[0], &kr_word_4, 16);
      }
      #pragma unroll
      for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
        float d = kr_x_1[kr_k_1] - mean;
        q += d * d;
      }
    }
  } else {
    for (int kr_j0_6 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_6 < kr_vend_1; kr_j0_6 += 2048) {   // 4 steps at a time, their loads first
      uint4 kr_pre_1[4][1];
      #pragma unroll
      for (int kr_u_2 = 0; kr_u_2 < 4; kr_u_2++) {
        if (kr_j0_6 + kr_u_2 * 512 < kr_vend_1) {
          const int j = kr_j0_6 + kr_u_2 * 512;
          kr_pre_1[kr_u_2][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_2 = 0; kr_u_2 < 4; kr_u_2++) {
        const int kr_ju_1 = kr_j0_6 + kr_u_2 * 512;
        if (kr_ju_1 < kr_vend_1) {
          float kr_x_1[4];
          uint4 kr_word_5;
          {
            kr_word_5 = kr_pre_1[kr_u_2][0];
            memcpy(&kr_x_1[0], &kr_word_5, 16);
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
  for (int j = (int)(kr_vend_1 + kr_lane); j < kr_to_1; j += 128) {
    float d = x[row * cols + j] - mean;
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
  for (int kr_warp = 1; kr_warp < 4; kr_warp++) {
    float q_other_1 = q_part[kr_warp];
    q = q + q_other_1;
  }
  if (threadIdx.x == 0) {
    *reinterpret_cast<float *>(workspace + ((((size_t)row * 2 + 1) * 16 + kr_part) * 1 + 0) * 8) = q;
    __threadfence();
    atomicAdd(&kr_arrived[row * 2 + 1], 1u);
  }
  // split_rows: the row's parts of this reduction, combined in a fixed order once all arrived
  if (threadIdx.x == 0) {
    while (atomicAdd(&kr_arrived[row * 2 + 1], 0u) < (unsigned int)kr_parts) {
      __nanosleep(200);   // poll gently: the parts still walking the row need the memory system
    }
  }
  __syncthreads();
  __threadfence();
  __shared__ float kr_q_row;
  if (threadIdx.x < 32) {   // warp 0: lane l the parts l, l + 32, ... in order, then a shuffle tree
    bool kr_has_1 = (int)threadIdx.x < kr_parts;
    if (kr_has_1) {
      q = __ldcg(&*reinterpret_cast<float *>(workspace + ((((size_t)row * 2 + 1) * 16 + threadIdx.x) * 1 + 0) * 8));
    }
    for (int kr_p_1 = threadIdx.x + 32; kr_p_1 < kr_parts; kr_p_1 += 32) {
      float q_part_1 = __ldcg(&*reinterpret_cast<float *>(workspace + ((((size_t)row * 2 + 1) * 16 + kr_p_1) * 1 + 0) * 8));
      q = q + q_part_1;
    }
    for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
      const bool kr_has_other_1 = __shfl_down_sync(0xffffffffu, kr_has_1, kr_offset) && threadIdx.x + kr_offset < 32;
      float q_other_2 = __shfl_down_sync(0xffffffffu, q, kr_offset);
      if (kr_has_other_1 && kr_has_1) {
        q = q + q_other_2;
      } else if (kr_has_other_1) {
        q = q_other_2;
        kr_has_1 = true;
      }
    }
    if (threadIdx.x == 0) {
      kr_q_row = q;
    }
  }
  __syncthreads();
  q = kr_q_row;
  if (threadIdx.x == 0 && atomicAdd(&kr_read[row * 2 + 1], 1u) == (unsigned int)kr_parts - 1u) {   // the last of the row's blocks reading these
    kr_arrived[row * 2 + 1] = 0u;
    kr_read[row * 2 + 1] = 0u;
  }
  float rstd = rsqrtf(q / cols + eps);
  const long long kr_len_2 = (long long)(cols) - (long long)(0);
  const long long kr_chunk_2 = ((kr_len_2 + kr_parts - 1) / kr_parts + 31) / 32 * 32;   // whole warps' worth
  const long long kr_from_2 = (long long)(0) + kr_part * kr_chunk_2;
  const long long kr_to_2 = kr_from_2 + kr_chunk_2 < (long long)(cols) ? kr_from_2 + kr_chunk_2 : (long long)(cols);
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_2 = (long long)(kr_from_2), kr_vend_2 = kr_vbeg_2;   // the 16-byte steps: [kr_vbeg_2, kr_vend_2)
  {
    const int j = kr_from_2;
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(y[row * cols + j]);
    const long long kr_head_2 = (long long)((16 - (kr_address_2 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_3 = (unsigned long long)(const void *)&(x[row * cols + j]);
    if (kr_address_2 % 4 == 0 && kr_address_3 % 4 == 0 && (long long)((16 - (kr_address_3 & 15)) & 15) / 4 == kr_head_2 && (long long)(kr_to_2) - kr_vbeg_2 - kr_head_2 >= 512) {
      kr_vbeg_2 += kr_head_2;
      kr_vend_2 = kr_vbeg_2 + ((long long)(kr_to_2) - kr_vbeg_2) / 4 * 4;
    }
  }
  for (int j = (int)((kr_from_2) + kr_lane); j < kr_vbeg_2; j += 128) {
    y[row * cols + j] = (x[row * cols + j] - mean) * rstd;
  }
  if (kr_row_fits && kr_vbeg_2 == kr_vbeg && kr_vend_2 == kr_vend) {   // row_cache: the steps the first sweep kept
    #pragma unroll
    for (int kr_m_2 = 0; kr_m_2 < 2; kr_m_2++) {
      const int kr_j0_7 = (int)(kr_vbeg_2 + kr_lane * 4 + kr_m_2 * 512);
      if (kr_j0_7 < kr_vend_2) {
        float kr_y[4];
        float kr_x_2[4];
        uint4 kr_word_6;
        {
          memcpy(&kr_x_2[0], &kr_row[kr_m_2][0], 16);   // row_cache: from registers
        }
        #pragma unroll
        for (int kr_k_2 = 0; kr_k_2 < 4; kr_k_2++) {
          kr_y[kr_k_2] = (kr_x_2[kr_k_2] - mean) * rstd;
        }
        {
          const int j = kr_j0_7;
          memcpy(&kr_word_6, &kr_y[0], 16);
          reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_6;
        }
      }
    }
    #pragma unroll 4
    for (int kr_j0_8 = (int)(kr_vbeg_2 + kr_lane * 4 + 1024); kr_j0_8 < kr_vend_2; kr_j0_8 += 512) {
      float kr_y[4];
      float kr_x_2[4];
      uint4 kr_word_7;
      {
        kr_word_7 = reinterpret_cast<const uint4 *>(&kr_row_shared[kr_j0_8 - kr_vbeg_2 - 1024])[0];   // row_cache: from shared memory
        memcpy(&kr_x_2[0], &kr_word_7, 16);
      }
      #pragma unroll
      for (int kr_k_2 = 0; kr_k_2 < 4; kr_k_2++) {
        kr_y[kr_k_2] = (kr_x_2[kr_k_2] - mean) * rstd;
      }
      {
        const int j = kr_j0_8;
        memcpy(&kr_word_7, &kr_y[0], 16);
        reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_7;
      }
    }
  } else {
    for (int kr_j0_9 = (int)(kr_vbeg_2 + kr_lane * 4); kr_j0_9 < kr_vend_2; kr_j0_9 += 2048) {   // 4 steps at a time, their loads first
      uint4 kr_pre_2[4][1];
      #pragma unroll
      for (int kr_u_3 = 0; kr_u_3 < 4; kr_u_3++) {
        if (kr_j0_9 + kr_u_3 * 512 < kr_vend_2) {
          const int j = kr_j0_9 + kr_u_3 * 512;
          kr_pre_2[kr_u_3][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_3 = 0; kr_u_3 < 4; kr_u_3++) {
        const int kr_ju_2 = kr_j0_9 + kr_u_3 * 512;
        if (kr_ju_2 < kr_vend_2) {
          float kr_y[4];
          float kr_x_2[4];
          uint4 kr_word_8;
          {
            kr_word_8 = kr_pre_2[kr_u_3][0];
            memcpy(&kr_x_2[0], &kr_word_8, 16);
          }
          #pragma unroll
          for (int kr_k_2 = 0; kr_k_2 < 4; kr_k_2++) {
            kr_y[kr_k_2] = (kr_x_2[kr_k_2] - mean) * rstd;
          }
          {
            const int j = kr_ju_2;
            memcpy(&kr_word_8, &kr_y[0], 16);
            reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_8;
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_2 + kr_lane); j < kr_to_2; j += 128) {
    y[row * cols + j] = (x[row * cols + j] - mean) * rstd;
  }
}
