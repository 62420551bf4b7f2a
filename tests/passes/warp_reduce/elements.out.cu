// One element a thread: each block's sum of squares through a shared-memory tree (if/else form),
// one partial per block. Its rows are the launch's blocks.
__global__ void __launch_bounds__(128) sumsq_partial(const float *x, float *partial, unsigned int n, int kr_rows = 0, int kr_block = 0) {
  // krewrite warp_reduce: one warp per row, 4 rows per block; each row loop strided over the row's threads
  int kr_row = blockIdx.x * 4 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (kr_row >= kr_rows) return;   // a whole warp: its row is past the last
  float kr_acc = 0.0f;
  #pragma unroll 4
  for (unsigned int gid = (kr_row * kr_block) + kr_lane; gid < ((kr_row + 1) * kr_block < (n) ? (kr_row + 1) * kr_block : (n)); gid += 32) {
    kr_acc += x[gid] * x[gid];
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float kr_acc_other = __shfl_down_sync(0xffffffffu, kr_acc, kr_offset);
    kr_acc = kr_acc + kr_acc_other;
  }
  kr_acc = __shfl_sync(0xffffffffu, kr_acc, 0);
  if (kr_lane == 0) {
    partial[kr_row] = kr_acc;
  }
}
