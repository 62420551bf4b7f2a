// CSR sparse matrix-vector product, a warp per row, one warp a block.
__global__ void __launch_bounds__(32) spmv(const int *rp, const int *ci, const float *val, const float *x, float *y, int m) {
  // krewrite warp_reduce: one warp per row, 1 row per block; each row loop strided over the row's threads
  int row = blockIdx.x * 1 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (row >= m) return;   // a whole warp: its row is past the last
  float s = 0.0f;
  int lo = rp[row];
  int hi = rp[row + 1];
  #pragma unroll 4
  for (int e = (lo) + kr_lane; e < hi; e += 32) {
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
