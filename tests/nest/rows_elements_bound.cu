// expect 1: rows_elements_bound.cu:7:7: note: kernel 'block_sum_le' is not a row reduction: the element's store is guarded by 'i <= last', not by 'i < bound'
// One element a thread guarded by i <= last: refused (the row nest reads a bound 'i < n').
__global__ void block_sum_le(const float *x, float *out, int last) {
  __shared__ float buf[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  if (i <= last) buf[tid] = x[i];
  else buf[tid] = 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = buf[0];
}
