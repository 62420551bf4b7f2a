// Thread-per-row dot of each row with v (a matvec), warp per row with 128 threads a block.
__global__ void __launch_bounds__(128) matvec2(const float *A, const float *v, float *out, int rows, int cols) {
  // krewrite warp_reduce: one warp per row, 4 rows per block; each row loop strided over the row's threads
  int r = blockIdx.x * 4 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (r >= rows) return;   // a whole warp: its row is past the last
  float acc = 0.0f;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 32) {
    acc += A[r * cols + j] * v[j];
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float acc_other = __shfl_down_sync(0xffffffffu, acc, kr_offset);
    acc = acc + acc_other;
  }
  acc = __shfl_sync(0xffffffffu, acc, 0);
  if (kr_lane == 0) {
    out[r] = acc;
  }
}
