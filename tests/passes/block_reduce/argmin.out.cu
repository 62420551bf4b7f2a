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
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(cols) - kr_vbeg - kr_head >= 256) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(cols) - kr_vbeg) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 64) {
    float v = x[row * cols + j];
    if (v < best) {
      best = v;
      at = j;
      best_seen = 1;
    }
  }
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 1024) {   // 4 steps at a time, their loads first
    uint4 kr_pre[4][1];
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      if (kr_j0 + kr_u * 256 < kr_vend) {
        const int j = kr_j0 + kr_u * 256;
        kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
      }
    }
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      const int kr_ju = kr_j0 + kr_u * 256;
      if (kr_ju < kr_vend) {
        float kr_x[4];
        uint4 kr_word;
        {
          kr_word = kr_pre[kr_u][0];
          memcpy(&kr_x[0], &kr_word, 16);
        }
        #pragma unroll
        for (int kr_k = 0; kr_k < 4; kr_k++) {
          const int j = kr_ju + kr_k;
          float v = kr_x[kr_k];
          if (v < best) {
            best = v;
            at = j;
            best_seen = 1;
          }
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < cols; j += 64) {
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
