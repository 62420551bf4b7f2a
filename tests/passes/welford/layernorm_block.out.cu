// Block-per-row layer norm without affine weights, the tree halved with blockDim.x >> 1.
__global__ void __launch_bounds__(256) lnorm(const float *x, float *y, int rows, int cols, float eps) {
  // krewrite welford: one block of 256 threads per row; each row loop strided over the row's threads
  __shared__ int kr_count_part[8];
  __shared__ float kr_mean_part[8];
  __shared__ float kr_m2_part[8];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  int kr_count = 0;
  float kr_mean = 0, kr_m2 = 0;
  float kr_shift = 0;
  if ((0) < (cols)) {
    int j = 0;
    kr_shift = x[row * cols + j];
  }
  // welford: the count, mean and M2 of the row in one sweep (batches of 8 per thread, Chan's combine)
  for (int kr_j0 = (int)((0) + kr_lane); kr_j0 < cols; kr_j0 += 2048) {
    float kr_batch[8];
    int kr_batch_count = 0;
    float kr_batch_sum = 0;
    #pragma unroll
    for (int kr_b = 0; kr_b < 8; kr_b++) {
      const int j = kr_j0 + kr_b * 256;
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
  s += kr_shift * (float)kr_count + kr_mean * (float)kr_count;
  float mean = s / cols;
  float q = 0.0f;
  // welford: the squared deviations from mean, from the one sweep's mean and M2
  q += kr_m2 + (float)kr_count * (kr_mean - (mean - kr_shift)) * (kr_mean - (mean - kr_shift));
  float rstd = rsqrtf(q / cols + eps);
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 256) {
    y[row * cols + j] = (x[row * cols + j] - mean) * rstd;
  }
}
