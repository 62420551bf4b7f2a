// One element a thread (the ternary form), the index written with a literal block size: each
// block's largest value through an fmaxf tree.
__global__ void __launch_bounds__(64) tile_max(const float *v, float *tile_out, int len, int kr_rows = 0, int kr_block = 0) {
  // krewrite block_reduce: one block of 64 threads per row; each row loop strided over the row's threads
  __shared__ float kr_acc_part[2];
  int kr_row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (kr_row >= kr_rows) return;
  float kr_acc = -INFINITY;
  #pragma unroll 4
  for (int at = (kr_row * 256) + kr_lane; at < (kr_row * 256 + kr_block < (len) ? kr_row * 256 + kr_block : (len)); at += 64) {
    kr_acc = fmaxf(kr_acc, v[at]);
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float kr_acc_other = __shfl_down_sync(0xffffffffu, kr_acc, kr_offset);
    kr_acc = fmaxf(kr_acc, kr_acc_other);
  }
  if (kr_lane % 32 == 0) {
    kr_acc_part[kr_lane / 32] = kr_acc;
  }
  __syncthreads();
  kr_acc = kr_acc_part[0];
  for (int kr_warp = 1; kr_warp < 2; kr_warp++) {
    float kr_acc_other_1 = kr_acc_part[kr_warp];
    kr_acc = fmaxf(kr_acc, kr_acc_other_1);
  }
  if (kr_lane == 0) {
    tile_out[kr_row] = kr_acc;
  }
}
