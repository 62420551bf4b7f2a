// A row's norm accumulated by fused multiply-adds, one thread per row.
__global__ void __launch_bounds__(128) norm_rows(const float *x, float *y, int rows, int cols) {
  // krewrite block_reduce: one block of 128 threads per row; each row loop strided over the row's threads
  __shared__ float s_part[4];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * cols + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(cols) - kr_vbeg - kr_head >= 512) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(cols) - kr_vbeg) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 128) {
    s = fmaf(x[row * cols + j], x[row * cols + j], s);
  }
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 2048) {   // 4 steps at a time, their loads first
    uint4 kr_pre[4][1];
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      if (kr_j0 + kr_u * 512 < kr_vend) {
        const int j = kr_j0 + kr_u * 512;
        kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(x[row * cols + j]))[0];
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
          s = fmaf(kr_x[kr_k], kr_x[kr_k], s);
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < cols; j += 128) {
    s = fmaf(x[row * cols + j], x[row * cols + j], s);
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
  if (kr_lane == 0) {
    y[row] = sqrtf(s);
  }
}
