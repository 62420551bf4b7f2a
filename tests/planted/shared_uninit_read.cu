// tests/planted/shared_uninit_read.cu (class 4; examples/reduce_sum): threads past the end skip
// their shared-memory slot instead of writing 0, so the tree reads slots no thread of the block
// wrote.
#include <cuda_runtime.h>

__global__ void reduce_partial(int n, float *x, float *partial) {
  __shared__ float buf[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) buf[tid] = x[i];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) buf[tid] += buf[tid + s];
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
