// Thread-per-row arg-min with a strict <: the first index of the minimum.
__global__ void __launch_bounds__(64) rowargmin(const float *x, int *idx, float *val, int rows, int cols) {
  // krewrite block_reduce: one block of 64 threads per row; each row loop strided over the row's threads
  __shared__ float best_part[2];
  __shared__ int at_part[2];
  __shared__ int best_seen_part[2];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float best = INFINITY;
  int at = -1;
  int best_seen = 0;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 64) {
    float v = x[row * cols + j];
    if (v < best) {
      best = v;
      at = j;
      best_seen = 1;
    }
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float best_other = __shfl_down_sync(0xffffffffu, best, kr_offset);
    int at_other = __shfl_down_sync(0xffffffffu, at, kr_offset);
    int best_seen_other = __shfl_down_sync(0xffffffffu, best_seen, kr_offset);
    if (best_seen_other && (!best_seen || best_other < best || (best_other == best && at_other < at))) {
      best = best_other;
      at = at_other;
      best_seen = 1;
    }
  }
  if (kr_lane % 32 == 0) {
    best_part[kr_lane / 32] = best;
    at_part[kr_lane / 32] = at;
    best_seen_part[kr_lane / 32] = best_seen;
  }
  __syncthreads();
  best = best_part[0];
  at = at_part[0];
  best_seen = best_seen_part[0];
  for (int kr_warp = 1; kr_warp < 2; kr_warp++) {
    float best_other_1 = best_part[kr_warp];
    int at_other_1 = at_part[kr_warp];
    int best_seen_other_1 = best_seen_part[kr_warp];
    if (best_seen_other_1 && (!best_seen || best_other_1 < best || (best_other_1 == best && at_other_1 < at))) {
      best = best_other_1;
      at = at_other_1;
      best_seen = 1;
    }
  }
  if (kr_lane == 0) {
    idx[row] = at;
  }
  if (kr_lane == 0) {
    val[row] = best;
  }
}
