// Sizes from #define, an accumulator that starts from bias[row], acc -= e.
#define ROWS 1000
#define COLS 513
__global__ void __launch_bounds__(128) rowdiff(const float *x, const float *bias, float *y) {
  // krewrite block_reduce: one block of 128 threads per row; each row loop strided over the row's threads
  __shared__ float s_part[4];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= ROWS) return;
  float s = bias[row];
  float s_init = s;
  s = 0;
  #pragma unroll 4
  for (int j = kr_lane; j < COLS; j += 128) {
    s -= 2.0f * x[row * COLS + j];
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
  s = s_init + s;
  if (kr_lane == 0) {
    y[row] = s;
  }
}
