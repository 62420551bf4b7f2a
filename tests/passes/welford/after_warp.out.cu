// Thread-per-row variance with the squared deviation written (v - mean) * (v - mean).
__global__ void __launch_bounds__(128) rowvar(const float *x, float *var, int rows, int cols) {
  // krewrite welford: one warp per row, 4 rows per block; each row loop strided over the row's threads
  int row = blockIdx.x * 4 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= rows) return;   // a whole warp: its row is past the last
  float sum = 0.0f;
  int kr_count = 0;
  float kr_mean = 0, kr_m2 = 0;
  float kr_shift = 0;
  if ((0) < (cols)) {
    int j = 0;
    kr_shift = x[row * cols + j];
  }
  // welford: the count, mean and M2 of the row in one sweep (batches of 8 per thread, Chan's combine)
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
  for (int kr_j0 = (int)((0) + kr_lane); kr_j0 < kr_vbeg; kr_j0 += 256) {
    float kr_batch[8];
    int kr_batch_count = 0;
    float kr_batch_sum = 0;
    #pragma unroll
    for (int kr_b = 0; kr_b < 8; kr_b++) {
      const int j = kr_j0 + kr_b * 32;
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
  for (int kr_j0_1 = (int)((kr_vbeg) + kr_lane * 4); kr_j0_1 < kr_vend; kr_j0_1 += 256) {
    float kr_batch_1[8];
    int kr_batch_count_1 = 0;
    float kr_batch_sum_1 = 0;
    #pragma unroll
    for (int kr_b_1 = 0; kr_b_1 < 2; kr_b_1++) {
      const int kr_jc = kr_j0_1 + kr_b_1 * 128;
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
  for (int kr_j0_2 = (int)((kr_vend) + kr_lane); kr_j0_2 < cols; kr_j0_2 += 256) {
    float kr_batch_2[8];
    int kr_batch_count_2 = 0;
    float kr_batch_sum_2 = 0;
    #pragma unroll
    for (int kr_b_2 = 0; kr_b_2 < 8; kr_b_2++) {
      const int j = kr_j0_2 + kr_b_2 * 32;
      if (j < cols) {
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
  // the row's threads combined: a shuffle tree in each warp
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
  kr_count = __shfl_sync(0xffffffffu, kr_count, 0);
  kr_mean = __shfl_sync(0xffffffffu, kr_mean, 0);
  kr_m2 = __shfl_sync(0xffffffffu, kr_m2, 0);
  sum += kr_shift * (float)kr_count + kr_mean * (float)kr_count;
  float mean = sum / cols;
  float m2 = 0.0f;
  // welford: the squared deviations from mean, from the one sweep's mean and M2
  m2 += kr_m2 + (float)kr_count * (kr_mean - (mean - kr_shift)) * (kr_mean - (mean - kr_shift));
  if (kr_lane == 0) {
    var[row] = m2 / cols;
  }
}
