// expect 1: rows_tree_other_op.cu:11:3: note: kernel 'mismatch_op' is not a row reduction: 'for (int k = blockDim.x / 2
__global__ void mismatch_op(const float *x, float *y, int rows, int cols) {
  __shared__ float buf[256];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) s += x[row * cols + j];
  buf[tid] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (tid < k) buf[tid] = fmaxf(buf[tid], buf[tid + k]);
    __syncthreads();
  }
  if (tid == 0) y[row] = buf[0];
}
