// CSR row sums of |value| (a row loop whose bounds come from memory).
__global__ void __launch_bounds__(256) csr_abs(const int *rp, const float *val, float *out, int m) {
  // krewrite block_reduce: one block of 256 threads per row; each row loop strided over the row's threads
  __shared__ float acc_part[8];
  int r = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (r >= m) return;
  float acc = 0.0f;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(rp[r]), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int e = rp[r];
    const unsigned long long kr_address = (unsigned long long)(const void *)&(val[e]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    if (kr_address % 4 == 0 && (long long)(rp[r + 1]) - kr_vbeg - kr_head >= 1024) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(rp[r + 1]) - kr_vbeg) / 4 * 4;
    }
  }
  for (int e = (int)((rp[r]) + kr_lane); e < kr_vbeg; e += 256) {
    acc += fabsf(val[e]);
  }
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 4096) {   // 4 steps at a time, their loads first
    uint4 kr_pre[4][1];
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      if (kr_j0 + kr_u * 1024 < kr_vend) {
        const int e = kr_j0 + kr_u * 1024;
        kr_pre[kr_u][0] = reinterpret_cast<const uint4 *>(&(val[e]))[0];
      }
    }
    #pragma unroll
    for (int kr_u = 0; kr_u < 4; kr_u++) {
      const int kr_ju = kr_j0 + kr_u * 1024;
      if (kr_ju < kr_vend) {
        float kr_val[4];
        uint4 kr_word;
        {
          kr_word = kr_pre[kr_u][0];
          memcpy(&kr_val[0], &kr_word, 16);
        }
        #pragma unroll
        for (int kr_k = 0; kr_k < 4; kr_k++) {
          acc += fabsf(kr_val[kr_k]);
        }
      }
    }
  }
  #pragma unroll 4
  for (int e = (int)(kr_vend + kr_lane); e < rp[r + 1]; e += 256) {
    acc += fabsf(val[e]);
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
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float acc_other_1 = acc_part[kr_warp];
    acc = acc + acc_other_1;
  }
  if (kr_lane == 0) {
    out[r] = acc;
  }
}
