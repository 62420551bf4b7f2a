// tests/planted/shared_set_by_every_block.cu (correct; specs/plus_one): every block sets its own
// shared constant before the barrier.
__global__ void plus_one(int n, const float *x, float *out) {
  __shared__ float one;
  if (threadIdx.x == 0) one = 1.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + one;
}
