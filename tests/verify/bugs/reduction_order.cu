// examples/reduce_sum/kernel.cu: out[0] = the sum of the n fp32 elements of x, in two launches:
//   reduce_partial: one block of 256 threads per chunk of 256 elements (one element a thread,
//                   zero past the end); a shared-memory tree reduction writes the chunk's sum to
//                   partial[blockIdx.x] (cdiv(n, 256) partial sums).
//   reduce_final:   one block of 256 threads; thread t sums partial[t], partial[t + 256], ...;
//                   a tree reduction in shared memory writes out[0].
// The order of the additions is fixed by the block size, so the result is deterministic.
#include <cuda_runtime.h>

// planted: the whole sum accumulated sequentially by one thread, in float: a different order
// whose rounding error is far beyond the strict fp32 tolerance at n = 70001.
__global__ void reduce_partial(int n, float *x, float *partial) {
  if (threadIdx.x != 0) return;
  float sum = 0.0f;
  if (blockIdx.x == 0)
    for (int i = 0; i < n; i++) sum += x[i];
  partial[blockIdx.x] = sum;
}

__global__ void reduce_final(int m, float *partial, float *out) {
  __shared__ float buf[256];
  int tid = threadIdx.x;
  float sum = 0.0f;
  for (int i = tid; i < m; i += blockDim.x) {
    sum += partial[i];
  }
  buf[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) {
      buf[tid] += buf[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    out[0] = buf[0];
  }
}

void launch_reduce_sum(int n, float *x, float *partial, float *out, cudaStream_t stream) {
  int block = 256;
  int m = (n + block - 1) / block;
  reduce_partial<<<m, block, 0, stream>>>(n, x, partial);
  reduce_final<<<1, block, 0, stream>>>(m, partial, out);
}
