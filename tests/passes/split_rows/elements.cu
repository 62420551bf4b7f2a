// One element a thread: each block's sum of squares through a shared-memory tree (if/else form),
// one partial per block. Its rows are the launch's blocks.
__global__ void sumsq_partial(const float *x, float *partial, unsigned int n) {
  __shared__ float s_data[512];
  unsigned int tx = threadIdx.x;
  unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid < n) {
    s_data[tx] = x[gid] * x[gid];
  } else {
    s_data[tx] = 0.0f;
  }
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tx < stride) {
      s_data[tx] += s_data[tx + stride];
    }
    __syncthreads();
  }
  if (tx == 0) {
    partial[blockIdx.x] = s_data[0];
  }
}
