// Block-per-row softmax, the tree halved with blockDim.x >> 1, the maximum as fmaxf(v, m).
__global__ void __launch_bounds__(1024) softmax_shift(const float *x, float *y, int rows, int cols) {
  // krewrite block_reduce: one block of 1024 threads per row; each row loop strided over the row's threads
  __shared__ float m_part[32];
  __shared__ float sum_part[32];
  int row = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 1024) {
    float v = x[row * cols + j];
    m = fmaxf(v, m);
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float m_other = __shfl_down_sync(0xffffffffu, m, kr_offset);
    m = fmaxf(m, m_other);
  }
  if (kr_lane % 32 == 0) {
    m_part[kr_lane / 32] = m;
  }
  __syncthreads();
  m = m_part[0];
  for (int kr_warp = 1; kr_warp < 32; kr_warp++) {
    float m_other_1 = m_part[kr_warp];
    m = fmaxf(m, m_other_1);
  }
  float mx = m;
  float sum = 0.0f;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 1024) {
    sum += __expf(x[row * cols + j] - mx);
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float sum_other = __shfl_down_sync(0xffffffffu, sum, kr_offset);
    sum = sum + sum_other;
  }
  if (kr_lane % 32 == 0) {
    sum_part[kr_lane / 32] = sum;
  }
  __syncthreads();
  sum = sum_part[0];
  for (int kr_warp = 1; kr_warp < 32; kr_warp++) {
    float sum_other_1 = sum_part[kr_warp];
    sum = sum + sum_other_1;
  }
  float total = sum;
  #pragma unroll 4
  for (int j = kr_lane; j < cols; j += 1024) {
    y[row * cols + j] = __expf(x[row * cols + j] - mx) / total;
  }
}
