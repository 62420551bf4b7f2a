// Block-per-row layer norm without affine weights; split_rows first, then welford (the search's
// order): the second rewrite keeps the one workspace parameter (it used to append another).
__global__ void __launch_bounds__(256) lnorm(const float *x, float *y, int rows, int cols, float eps, unsigned char *workspace_1 = nullptr) {
  // krewrite welford: each row over 4 blocks of 256 threads; each row loop strided over the row's threads
  __shared__ int kr_count_part[8];
  __shared__ float kr_mean_part[8];
  __shared__ float kr_m2_part[8];
  // split_rows: each row over 4 blocks; a block's reduction (stage) and part come from a ticket taken at its start,
  // ordered so that a block waits only for blocks that took earlier tickets (so all started): stage s of row r after stage s - 1 of row r + 1
  unsigned int *kr_arrived = reinterpret_cast<unsigned int *>(workspace_1 + (size_t)(rows) * 1 * 4 * 3 * 8);
  unsigned int *kr_read = kr_arrived + (size_t)(rows) * 1, *kr_ticket = kr_arrived + (size_t)(rows) * 2;
  __shared__ unsigned int kr_unit;
  if (threadIdx.x == 0) {
    kr_unit = atomicAdd(kr_ticket, 1u);
    if (kr_unit == gridDim.x - 1) *kr_ticket = 0u;   // every ticket taken: back at zero for the next launch
  }
  __syncthreads();
  const unsigned int kr_u = kr_unit;
  const int kr_part = (int)(kr_u % 4), kr_stage = 1 - (int)(kr_u / 4 % 2);
  int row = (int)(kr_u / 4 / 2) - kr_stage * 2;
  int kr_lane = threadIdx.x;
  if (row < 0 || row >= rows) return;
  float s = 0.0f;
  int kr_count = 0;
  float kr_mean = 0, kr_m2 = 0;
  float kr_shift = 0;
  if ((0) < (cols)) {
    int j = 0;
    kr_shift = x[row * cols + j];
  }
  if (kr_stage == 0) {   // split_rows: this block's part of the row's reduction 0
    // welford: the count, mean and M2 of the row in one sweep (batches of 8 per thread, Chan's combine)
    const long long kr_len = (long long)(cols) - (long long)(0);
    const long long kr_chunk = ((kr_len + 3) / 4 + 31) / 32 * 32;   // whole warps' worth
    const long long kr_from = (long long)(0) + kr_part * kr_chunk;
    const long long kr_to = kr_from + kr_chunk < (long long)(cols) ? kr_from + kr_chunk : (long long)(cols);
    // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
    long long kr_vbeg = (long long)(kr_from), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
    {
      const int j = kr_from;
      const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * cols + j]);
      const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
      if (kr_address % 4 == 0 && (long long)(kr_to) - kr_vbeg - kr_head >= 1024) {
        kr_vbeg += kr_head;
        kr_vend = kr_vbeg + ((long long)(kr_to) - kr_vbeg) / 4 * 4;
      }
    }
    for (int kr_j0 = (int)((kr_from) + kr_lane); kr_j0 < kr_vbeg; kr_j0 += 2048) {
      float kr_batch[8];
      int kr_batch_count = 0;
      float kr_batch_sum = 0;
      #pragma unroll
      for (int kr_b = 0; kr_b < 8; kr_b++) {
        const int j = kr_j0 + kr_b * 256;
        if (j < kr_vbeg) {
          kr_batch[kr_b] = x[row * cols + j] - kr_shift;
          kr_batch_sum += kr_batch[kr_b];
          kr_batch_count++;
        }
      }
      const float kr_batch_mean = kr_batch_count == 8 ? kr_batch_sum * 0.125f : kr_batch_sum / (float)kr_batch_count;
      float kr_batch_m2 = 0;
      #pragma unroll
      for (int kr_b = 0; kr_b < 8; kr_b++) {
        if (kr_b < kr_batch_count) {
          float kr_d = kr_batch[kr_b] - kr_batch_mean;
          kr_batch_m2 += kr_d * kr_d;
        }
      }
      const int kr_total = kr_count + kr_batch_count;
      const float kr_d = kr_batch_mean - kr_mean;
      kr_mean += kr_d * ((float)kr_batch_count / (float)kr_total);
      kr_m2 += kr_batch_m2 + kr_d * kr_d * ((float)kr_count * (float)kr_batch_count / (float)kr_total);
      kr_count = kr_total;
    }
    for (int kr_j0_1 = (int)((kr_vbeg) + kr_lane * 4); kr_j0_1 < kr_vend; kr_j0_1 += 2048) {
      float kr_batch_1[8];
      int kr_batch_count_1 = 0;
      float kr_batch_sum_1 = 0;
      #pragma unroll
      for (int kr_b_1 = 0; kr_b_1 < 2; kr_b_1++) {
        const int kr_jc = kr_j0_1 + kr_b_1 * 1024;
        if (kr_jc < kr_vend) {
          float kr_x[4];
          uint4 kr_word;
          {
            const int j = kr_jc;
            kr_word = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
            memcpy(&kr_x[0], &kr_word, 16);
          }
          #pragma unroll
          for (int kr_k = 0; kr_k < 4; kr_k++) {
            kr_batch_1[kr_b_1 * 4 + kr_k] = kr_x[kr_k] - kr_shift;
            kr_batch_sum_1 += kr_batch_1[kr_b_1 * 4 + kr_k];
            kr_batch_count_1++;
          }
        }
      }
      const float kr_batch_mean_1 = kr_batch_count_1 == 8 ? kr_batch_sum_1 * 0.125f : kr_batch_sum_1 / (float)kr_batch_count_1;
      float kr_batch_m2_1 = 0;
      #pragma unroll
      for (int kr_b_1 = 0; kr_b_1 < 8; kr_b_1++) {
        if (kr_b_1 < kr_batch_count_1) {
          float kr_d_1 = kr_batch_1[kr_b_1] - kr_batch_mean_1;
          kr_batch_m2_1 += kr_d_1 * kr_d_1;
        }
      }
      const int kr_total_1 = kr_count + kr_batch_count_1;
      const float kr_d_1 = kr_batch_mean_1 - kr_mean;
      kr_mean += kr_d_1 * ((float)kr_batch_count_1 / (float)kr_total_1);
      kr_m2 += kr_batch_m2_1 + kr_d_1 * kr_d_1 * ((float)kr_count * (float)kr_batch_count_1 / (float)kr_total_1);
      kr_count = kr_total_1;
    }
    for (int kr_j0_2 = (int)((kr_vend) + kr_lane); kr_j0_2 < kr_to; kr_j0_2 += 2048) {
      float kr_batch_2[8];
      int kr_batch_count_2 = 0;
      float kr_batch_sum_2 = 0;
      #pragma unroll
      for (int kr_b_2 = 0; kr_b_2 < 8; kr_b_2++) {
        const int j = kr_j0_2 + kr_b_2 * 256;
        if (j < kr_to) {
          kr_batch_2[kr_b_2] = x[row * cols + j] - kr_shift;
          kr_batch_sum_2 += kr_batch_2[kr_b_2];
          kr_batch_count_2++;
        }
      }
      const float kr_batch_mean_2 = kr_batch_count_2 == 8 ? kr_batch_sum_2 * 0.125f : kr_batch_sum_2 / (float)kr_batch_count_2;
      float kr_batch_m2_2 = 0;
      #pragma unroll
      for (int kr_b_2 = 0; kr_b_2 < 8; kr_b_2++) {
        if (kr_b_2 < kr_batch_count_2) {
          float kr_d_2 = kr_batch_2[kr_b_2] - kr_batch_mean_2;
          kr_batch_m2_2 += kr_d_2 * kr_d_2;
        }
      }
      const int kr_total_2 = kr_count + kr_batch_count_2;
      const float kr_d_2 = kr_batch_mean_2 - kr_mean;
      kr_mean += kr_d_2 * ((float)kr_batch_count_2 / (float)kr_total_2);
      kr_m2 += kr_batch_m2_2 + kr_d_2 * kr_d_2 * ((float)kr_count * (float)kr_batch_count_2 / (float)kr_total_2);
      kr_count = kr_total_2;
    }
    // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
    for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
      int kr_count_other = __shfl_down_sync(0xffffffffu, kr_count, kr_offset);
      float kr_mean_other = __shfl_down_sync(0xffffffffu, kr_mean, kr_offset);
      float kr_m2_other = __shfl_down_sync(0xffffffffu, kr_m2, kr_offset);
      int kr_count_1 = kr_count + kr_count_other;
      if (kr_count_1 > 0) {
        float kr_delta = kr_mean_other - kr_mean;
        kr_mean = kr_mean + kr_delta * ((float)kr_count_other / (float)kr_count_1);
        kr_m2 = kr_m2 + kr_m2_other + kr_delta * kr_delta * ((float)kr_count * (float)kr_count_other / (float)kr_count_1);
      }
      kr_count = kr_count_1;
    }
    if (kr_lane % 32 == 0) {
      kr_count_part[kr_lane / 32] = kr_count;
      kr_mean_part[kr_lane / 32] = kr_mean;
      kr_m2_part[kr_lane / 32] = kr_m2;
    }
    __syncthreads();
    kr_count = kr_count_part[0];
    kr_mean = kr_mean_part[0];
    kr_m2 = kr_m2_part[0];
    for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
      int kr_count_other_1 = kr_count_part[kr_warp];
      float kr_mean_other_1 = kr_mean_part[kr_warp];
      float kr_m2_other_1 = kr_m2_part[kr_warp];
      int kr_count_2 = kr_count + kr_count_other_1;
      if (kr_count_2 > 0) {
        float kr_delta_1 = kr_mean_other_1 - kr_mean;
        kr_mean = kr_mean + kr_delta_1 * ((float)kr_count_other_1 / (float)kr_count_2);
        kr_m2 = kr_m2 + kr_m2_other_1 + kr_delta_1 * kr_delta_1 * ((float)kr_count * (float)kr_count_other_1 / (float)kr_count_2);
      }
      kr_count = kr_count_2;
    }
    if (threadIdx.x == 0) {
      *reinterpret_cast<int *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + kr_part) * 3 + 0) * 8) = kr_count;
      *reinterpret_cast<float *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + kr_part) * 3 + 1) * 8) = kr_mean;
      *reinterpret_cast<float *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + kr_part) * 3 + 2) * 8) = kr_m2;
      __threadfence();
      atomicAdd(&kr_arrived[row * 1 + 0], 1u);
    }
    return;
  }
  // split_rows: the row's 4 parts of this reduction, combined in a fixed order once all arrived
  if (threadIdx.x == 0) {
    while (atomicAdd(&kr_arrived[row * 1 + 0], 0u) < 4u) {
      __nanosleep(200);   // poll gently: the parts still walking the row need the memory system
    }
  }
  __syncthreads();
  __threadfence();
  __shared__ int kr_count_row;
  __shared__ float kr_mean_row;
  __shared__ float kr_m2_row;
  if (threadIdx.x < 32) {   // warp 0: lane l the parts l, l + 32, ... in order, then a shuffle tree
    bool kr_has = (int)threadIdx.x < 4;
    if (kr_has) {
      kr_count = __ldcg(&*reinterpret_cast<int *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + threadIdx.x) * 3 + 0) * 8));
      kr_mean = __ldcg(&*reinterpret_cast<float *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + threadIdx.x) * 3 + 1) * 8));
      kr_m2 = __ldcg(&*reinterpret_cast<float *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + threadIdx.x) * 3 + 2) * 8));
    }
    for (int kr_p = threadIdx.x + 32; kr_p < 4; kr_p += 32) {
      int kr_count_part_1 = __ldcg(&*reinterpret_cast<int *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + kr_p) * 3 + 0) * 8));
      float kr_mean_part_1 = __ldcg(&*reinterpret_cast<float *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + kr_p) * 3 + 1) * 8));
      float kr_m2_part_1 = __ldcg(&*reinterpret_cast<float *>(workspace_1 + ((((size_t)row * 1 + 0) * 4 + kr_p) * 3 + 2) * 8));
      int kr_count_3 = kr_count + kr_count_part_1;
      if (kr_count_3 > 0) {
        float kr_delta_2 = kr_mean_part_1 - kr_mean;
        kr_mean = kr_mean + kr_delta_2 * ((float)kr_count_part_1 / (float)kr_count_3);
        kr_m2 = kr_m2 + kr_m2_part_1 + kr_delta_2 * kr_delta_2 * ((float)kr_count * (float)kr_count_part_1 / (float)kr_count_3);
      }
      kr_count = kr_count_3;
    }
    for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
      const bool kr_has_other = __shfl_down_sync(0xffffffffu, kr_has, kr_offset) && threadIdx.x + kr_offset < 32;
      int kr_count_other_2 = __shfl_down_sync(0xffffffffu, kr_count, kr_offset);
      float kr_mean_other_2 = __shfl_down_sync(0xffffffffu, kr_mean, kr_offset);
      float kr_m2_other_2 = __shfl_down_sync(0xffffffffu, kr_m2, kr_offset);
      if (kr_has_other && kr_has) {
        int kr_count_4 = kr_count + kr_count_other_2;
        if (kr_count_4 > 0) {
          float kr_delta_3 = kr_mean_other_2 - kr_mean;
          kr_mean = kr_mean + kr_delta_3 * ((float)kr_count_other_2 / (float)kr_count_4);
          kr_m2 = kr_m2 + kr_m2_other_2 + kr_delta_3 * kr_delta_3 * ((float)kr_count * (float)kr_count_other_2 / (float)kr_count_4);
        }
        kr_count = kr_count_4;
      } else if (kr_has_other) {
        kr_count = kr_count_other_2;
        kr_mean = kr_mean_other_2;
        kr_m2 = kr_m2_other_2;
        kr_has = true;
      }
    }
    if (threadIdx.x == 0) {
      kr_count_row = kr_count;
      kr_mean_row = kr_mean;
      kr_m2_row = kr_m2;
    }
  }
  __syncthreads();
  kr_count = kr_count_row;
  kr_mean = kr_mean_row;
  kr_m2 = kr_m2_row;
  if (threadIdx.x == 0 && atomicAdd(&kr_read[row * 1 + 0], 1u) == 3u) {   // the last of the 4 blocks reading these
    kr_arrived[row * 1 + 0] = 0u;
    kr_read[row * 1 + 0] = 0u;
  }
  s += kr_shift * (float)kr_count + kr_mean * (float)kr_count;
  float mean = s / cols;
  float q = 0.0f;
  // welford: the squared deviations from mean, from the one sweep's mean and M2
  q += kr_m2 + (float)kr_count * (kr_mean - (mean - kr_shift)) * (kr_mean - (mean - kr_shift));
  float rstd = rsqrtf(q / cols + eps);
  {
    const long long kr_len_1 = (long long)(cols) - (long long)(0);
    const long long kr_chunk_1 = ((kr_len_1 + 3) / 4 + 31) / 32 * 32;   // whole warps' worth
    const long long kr_from_1 = (long long)(0) + kr_part * kr_chunk_1;
    const long long kr_to_1 = kr_from_1 + kr_chunk_1 < (long long)(cols) ? kr_from_1 + kr_chunk_1 : (long long)(cols);
    // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
    long long kr_vbeg_1 = (long long)(kr_from_1), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
    {
      const int j = kr_from_1;
      const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(y[row * cols + j]);
      const long long kr_head_1 = (long long)((16 - (kr_address_1 & 15)) & 15) / 4;   // elements before a 16-byte boundary
      const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(x[row * cols + j]);
      if (kr_address_1 % 4 == 0 && kr_address_2 % 4 == 0 && (long long)((16 - (kr_address_2 & 15)) & 15) / 4 == kr_head_1 && (long long)(kr_to_1) - kr_vbeg_1 - kr_head_1 >= 1024) {
        kr_vbeg_1 += kr_head_1;
        kr_vend_1 = kr_vbeg_1 + ((long long)(kr_to_1) - kr_vbeg_1) / 4 * 4;
      }
    }
    for (int j = (int)((kr_from_1) + kr_lane); j < kr_vbeg_1; j += 256) {
      y[row * cols + j] = (x[row * cols + j] - mean) * rstd;
    }
    for (int kr_j0_3 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_3 < kr_vend_1; kr_j0_3 += 4096) {   // 4 steps at a time, their loads first
      uint4 kr_pre[4][1];
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        if (kr_j0_3 + kr_u_1 * 1024 < kr_vend_1) {
          const int j = kr_j0_3 + kr_u_1 * 1024;
          kr_pre[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
        }
      }
      #pragma unroll
      for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
        const int kr_ju = kr_j0_3 + kr_u_1 * 1024;
        if (kr_ju < kr_vend_1) {
          float kr_y[4];
          float kr_x_1[4];
          uint4 kr_word_1;
          {
            kr_word_1 = kr_pre[kr_u_1][0];
            memcpy(&kr_x_1[0], &kr_word_1, 16);
          }
          #pragma unroll
          for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
            kr_y[kr_k_1] = (kr_x_1[kr_k_1] - mean) * rstd;
          }
          {
            const int j = kr_ju;
            memcpy(&kr_word_1, &kr_y[0], 16);
            reinterpret_cast<uint4 *>(&(y[row * cols + j]))[0] = kr_word_1;
          }
        }
      }
    }
    for (int j = (int)(kr_vend_1 + kr_lane); j < kr_to_1; j += 256) {
      y[row * cols + j] = (x[row * cols + j] - mean) * rstd;
    }
  }
}
