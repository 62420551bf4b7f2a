// tests/planted/reduction_order_legal.cu (correct; examples/reduce_sum): each block's tree adds
// neighbours first (interleaved addressing: slot t gets t + s for t a multiple of 2s) instead
// of halves: a different order of the additions, with the same pairwise error, well within
// strict fp32.
__global__ void reduce_partial(int n, float *x, float *partial) {
  __shared__ float buf[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = buf[0];
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
