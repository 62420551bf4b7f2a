// A block-per-row original: the column layout needs a thread-per-row one.
__global__ void rowmax_blk(const float *x, float *out, int rows, int cols) {
  __shared__ float sh[256];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row < rows) {
    float m = -INFINITY;
    for (int j = tid; j < cols; j += blockDim.x) m = fmaxf(m, x[row * cols + j]);
    sh[tid] = m;
    __syncthreads();
    for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
      if (tid < s) sh[tid] = fmaxf(sh[tid], sh[tid + s]);
      __syncthreads();
    }
    if (tid == 0) out[row] = sh[0];
  }
}
