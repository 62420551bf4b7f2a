// tests/planted/atomic_block_sum.cu (correct; examples/reduce_sum): each block's threads add
// their element into one shared accumulator with atomicAdd (in whatever order they arrive);
// the rounding differs from the tree's but stays within strict fp32.
__global__ void reduce_partial(int n, float *x, float *partial) {
  __shared__ float acc;
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid == 0) acc = 0.0f;
  __syncthreads();
  if (i < n) atomicAdd(&acc, x[i]);
  __syncthreads();
  if (tid == 0) partial[blockIdx.x] = acc;
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
