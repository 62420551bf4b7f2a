// A thread-per-row masked dot product: x and keep are read for every element, so they move by
// 16-byte words; w is read only where keep[j] holds (a load the original makes under a condition
// might be out of bounds), so it stays one element at a time; the map's store `z[...] = ...` is
// the array's only store and moves by words too, while `hits` (stored under the condition) does not.
__global__ void __launch_bounds__(64) masked_dot(const float *x, const int *keep, const float *w, float *z, int *hits,
                           float *out, int rows, int n) {
  // krewrite block_reduce: one block of 64 threads per row; each row loop strided over the row's threads
  __shared__ float acc_part[2];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float acc = 0.0f;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(x[row * n + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(keep[j]);
    if (kr_address % 4 == 0 && kr_address_1 % 4 == 0 && (long long)((16 - (kr_address_1 & 15)) & 15) / 4 == kr_head && (long long)(n) - kr_vbeg - kr_head >= 256) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(n) - kr_vbeg) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 64) {
    float v = x[row * n + j];
    acc += keep[j] != 0 ? v * w[row * n + j] : 0.0f;
  }
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 1024) {   // 4 steps at a time, their loads first
    uint4 kr_pre[4][2];
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      if (kr_j0 + kr_u * 256 < kr_vend) {
        const int j = kr_j0 + kr_u * 256;
        kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(x[row * n + j]))[0];
        kr_pre[kr_u][1] = reinterpret_cast<const uint4 *>(&(keep[j]))[0];
      }
    }
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      const int kr_ju = kr_j0 + kr_u * 256;
      if (kr_ju < kr_vend) {
        float kr_x[4];
        int kr_keep[4];
        uint4 kr_word;
        {
          kr_word = kr_pre[kr_u][0];
          memcpy(&kr_x[0], &kr_word, 16);
          kr_word = kr_pre[kr_u][1];
          memcpy(&kr_keep[0], &kr_word, 16);
        }
        #pragma unroll
        for (int kr_k = 0; kr_k < 4; kr_k++) {
          const int j = kr_ju + kr_k;
          float v = kr_x[kr_k];
          acc += kr_keep[kr_k] != 0 ? v * w[row * n + j] : 0.0f;
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < n; j += 64) {
    float v = x[row * n + j];
    acc += keep[j] != 0 ? v * w[row * n + j] : 0.0f;
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float acc_other = __shfl_down_sync(0xffffffffu, acc, kr_offset);
    acc = acc + acc_other;
  }
  if (kr_lane % 32 == 0) {
    acc_part[kr_lane / 32] = acc;
  }
  __syncthreads();
  acc = acc_part[0];
  for (int kr_warp = 1; kr_warp < 2; kr_warp++) {
    float acc_other_1 = acc_part[kr_warp];
    acc = acc + acc_other_1;
  }
  if (kr_lane == 0) {
    out[row] = acc;
  }
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg_1 = (long long)(0), kr_vend_1 = kr_vbeg_1;   // the 16-byte steps: [kr_vbeg_1, kr_vend_1)
  {
    const int j = 0;
    const unsigned long long kr_address_2 = (unsigned long long)(const void *)&(z[row * n + j]);
    const long long kr_head_1 = (long long)((16 - (kr_address_2 & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_3 = (unsigned long long)(const void *)&(x[row * n + j]);
    const unsigned long long kr_address_4 = (unsigned long long)(const void *)&(keep[j]);
    if (kr_address_2 % 4 == 0 && kr_address_3 % 4 == 0 && (long long)((16 - (kr_address_3 & 15)) & 15) / 4 == kr_head_1 && kr_address_4 % 4 == 0 && (long long)((16 - (kr_address_4 & 15)) & 15) / 4 == kr_head_1 && (long long)(n) - kr_vbeg_1 - kr_head_1 >= 256) {
      kr_vbeg_1 += kr_head_1;
      kr_vend_1 = kr_vbeg_1 + ((long long)(n) - kr_vbeg_1) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg_1; j += 64) {
    z[row * n + j] = x[row * n + j] * acc;
    if (keep[j] > 1) hits[row * n + j] = 1;
  }
  for (int kr_j0_1 = (int)(kr_vbeg_1 + kr_lane * 4); kr_j0_1 < kr_vend_1; kr_j0_1 += 1024) {   // 4 steps at a time, their loads first
    uint4 kr_pre_1[4][2];
    #pragma unroll
    for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
      if (kr_j0_1 + kr_u_1 * 256 < kr_vend_1) {
        const int j = kr_j0_1 + kr_u_1 * 256;
        kr_pre_1[kr_u_1][0] = reinterpret_cast<const uint4 *>(&(x[row * n + j]))[0];
        kr_pre_1[kr_u_1][1] = reinterpret_cast<const uint4 *>(&(keep[j]))[0];
      }
    }
    #pragma unroll
    for (int kr_u_1 = 0; kr_u_1 < 4; kr_u_1++) {
      const int kr_ju_1 = kr_j0_1 + kr_u_1 * 256;
      if (kr_ju_1 < kr_vend_1) {
        float kr_z[4];
        float kr_x_1[4];
        int kr_keep_1[4];
        uint4 kr_word_1;
        {
          kr_word_1 = kr_pre_1[kr_u_1][0];
          memcpy(&kr_x_1[0], &kr_word_1, 16);
          kr_word_1 = kr_pre_1[kr_u_1][1];
          memcpy(&kr_keep_1[0], &kr_word_1, 16);
        }
        #pragma unroll
        for (int kr_k_1 = 0; kr_k_1 < 4; kr_k_1++) {
          const int j = kr_ju_1 + kr_k_1;
          kr_z[kr_k_1] = kr_x_1[kr_k_1] * acc;
          if (kr_keep_1[kr_k_1] > 1) hits[row * n + j] = 1;
        }
        {
          const int j = kr_ju_1;
          memcpy(&kr_word_1, &kr_z[0], 16);
          reinterpret_cast<uint4 *>(&(z[row * n + j]))[0] = kr_word_1;
        }
      }
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend_1 + kr_lane); j < n; j += 64) {
    z[row * n + j] = x[row * n + j] * acc;
    if (keep[j] > 1) hits[row * n + j] = 1;
  }
}
