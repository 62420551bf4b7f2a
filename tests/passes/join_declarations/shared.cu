// A __shared__ scalar is the block's, not the thread's.
__global__ void sh(const float *x, float *y) {
  __shared__ float total;
  total = x[0];
  __syncthreads();
  y[threadIdx.x] = total;
}
