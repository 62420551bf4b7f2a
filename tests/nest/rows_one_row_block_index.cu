// expect 1: rows_one_row_block_index.cu:14:29: note: kernel 'sum_to' is not a row reduction: 'blockIdx.x' is used directly in the row's work
// No row index before the row's work, then blockIdx.x in a store: not one row that every block
// computes alike (each block writes its own element), so no nest.
__global__ void sum_to(const float *x, float *out, int n) {
  __shared__ float buf[256];
  float s = 0.0f;
  for (int j = threadIdx.x; j < n; j += blockDim.x) s += x[j];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) buf[threadIdx.x] += buf[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}
