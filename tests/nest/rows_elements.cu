// expect 0: (op min, init INFINITY)
// One element a thread (the ternary form), a min through fminf: the rows are the blocks, the row
// loop is the one the store of the element stands for, padded with the min's identity.
__global__ void block_min(const double *d, double *lo, long total) {
  __shared__ double w[512];
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  w[threadIdx.x] = (k < total) ? d[k] : INFINITY;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) w[threadIdx.x] = fmin(w[threadIdx.x], w[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) lo[blockIdx.x] = w[0];
}
