// tests/planted/shuffle_reduction.cu (correct; examples/reduce_sum): each warp sums its 32 values
// with __shfl_down_sync, the eight warp sums meet in shared memory, and warp 0 adds them.
__device__ float warp_sum(float v) {
  for (int k = 16; k > 0; k /= 2) v += __shfl_down_sync(0xffffffffu, v, k);
  return v;
}

__global__ void reduce_partial(int n, float *x, float *partial) {
  __shared__ float warps[8];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = warp_sum(i < n ? x[i] : 0.0f);
  if (tid % 32 == 0) warps[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = warp_sum(tid < 8 ? warps[tid] : 0.0f);
    if (tid == 0) partial[blockIdx.x] = v;
  }
}

__global__ void reduce_final(int m, float *partial, float *out) {
  __shared__ float buf[256];
  int tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = tid; i < m; i += blockDim.x) sum += partial[i];
  buf[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[0] = buf[0];
}
