// vector = false: the row loops stay one element at a time.
__global__ void __launch_bounds__(256) rowsum(const float *x, float *y, int rows, int n) {
  // krewrite block_reduce: one block of 256 threads per row; each row loop strided over the row's threads
  __shared__ float s_part[8];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  #pragma unroll 4
  for (int j = kr_lane; j < n; j += 256) {
    s += x[row * n + j];
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
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float s_other_1 = s_part[kr_warp];
    s = s + s_other_1;
  }
  if (kr_lane == 0) {
    y[row] = s;
  }
}
