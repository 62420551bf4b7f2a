// CSR sparse matrix-vector product, a warp per row, one warp a block.
__global__ void __launch_bounds__(32) spmv(const int *rp, const int *ci, const float *val, const float *x, float *y, int m) {
  // krewrite warp_reduce: one warp per row, 1 row per block; each row loop strided over the row's threads
  int row = blockIdx.x * 1 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= m) return;   // a whole warp: its row is past the last
  float s = 0.0f;
  int lo = rp[row];
  int hi = rp[row + 1];
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(lo), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int e = lo;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(val[e]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(ci[e]);
    if (kr_address % 4 == 0 && kr_address_1 % 4 == 0 && (long long)((16 - (kr_address_1 & 15)) & 15) / 4 == kr_head && (long long)(hi) - kr_vbeg - kr_head >= 128) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(hi) - kr_vbeg) / 4 * 4;
    }
  }
  for (int e = (int)((lo) + kr_lane); e < kr_vbeg; e += 32) {
    s += val[e] * x[ci[e]];
  }
  #pragma unroll 2
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 128) {
    float kr_val[4];
    int kr_ci[4];
    uint4 kr_word;
    {
      const int e = kr_j0;
      kr_word = reinterpret_cast<const uint4 *>(&(val[e]))[0];
      memcpy(&kr_val[0], &kr_word, 16);
      kr_word = reinterpret_cast<const uint4 *>(&(ci[e]))[0];
      memcpy(&kr_ci[0], &kr_word, 16);
    }
    #pragma unroll
    for (int kr_k = 0; kr_k < 4; kr_k++) {
      s += kr_val[kr_k] * x[kr_ci[kr_k]];
    }
  }
  #pragma unroll 4
  for (int e = (int)(kr_vend + kr_lane); e < hi; e += 32) {
    s += val[e] * x[ci[e]];
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float s_other = __shfl_down_sync(0xffffffffu, s, kr_offset);
    s = s + s_other;
  }
  s = __shfl_sync(0xffffffffu, s, 0);
  if (kr_lane == 0) {
    y[row] = s;
  }
}
