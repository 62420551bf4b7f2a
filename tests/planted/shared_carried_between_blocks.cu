// tests/planted/shared_carried_between_blocks.cu (class 4; specs/plus_one): only block 0 sets the
// shared constant; the other blocks read a __shared__ variable none of their threads wrote
// (on a GPU each block's shared memory starts undefined).
__global__ void plus_one(int n, const float *x, float *out) {
  __shared__ float one;
  if (blockIdx.x == 0 && threadIdx.x == 0) one = 1.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + one;
}
