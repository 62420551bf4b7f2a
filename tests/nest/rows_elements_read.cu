// expect 1: rows_elements_read.cu:14:3: note: kernel 'sum_and_copy' is not a row reduction: 'if (i < n) { y[i] = x[i]
// One element a thread, and the element read again after the tree (a map of its own): not a row
// nest (the row loop stands only for the store into shared memory).
__global__ void sum_and_copy(const float *x, float *y, float *out, int n) {
  __shared__ float buf[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
  if (i < n) {
    y[i] = x[i];
  }
}
