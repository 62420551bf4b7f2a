// Names the emitter would use (s_part, s_other, kr_lane) already taken by the kernel.
__global__ void __launch_bounds__(256) clash(const float *s_part, float *s_other, int rows, int cols) {
  // krewrite block_reduce: one block of 256 threads per row; each row loop strided over the row's threads
  __shared__ float s_part_1[8];
  int row = blockIdx.x;
  int kr_lane_1 = threadIdx.x;
  if (row >= rows) return;
  int kr_lane = 3;
  float s = 0.0f;
  #pragma unroll 4
  for (int j = kr_lane_1; j < cols; j += 256) {
    s += s_part[row * cols + j] * kr_lane;
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float s_other_1 = __shfl_down_sync(0xffffffffu, s, kr_offset);
    s = s + s_other_1;
  }
  if (kr_lane_1 % 32 == 0) {
    s_part_1[kr_lane_1 / 32] = s;
  }
  __syncthreads();
  s = s_part_1[0];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float s_other_2 = s_part_1[kr_warp];
    s = s + s_other_2;
  }
  if (kr_lane_1 == 0) {
    s_other[row] = s;
  }
}
