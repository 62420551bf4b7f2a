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
  for (int kr_j0 = kr_lane; kr_j0 < cols; kr_j0 += 256) {
    float kr_batch[8];
    int kr_batch_count = 0;
    float kr_batch_sum = 0;
    #pragma unroll
    for (int kr_b = 0; kr_b < 8; kr_b++) {
      int j = kr_j0 + kr_b * 32;
      if (j < cols) {
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
