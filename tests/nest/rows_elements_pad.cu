// expect 1: rows_elements_pad.cu:7:3: note: kernel 'block_sum' is not a row reduction: the element's store writes '1.0f' past the bound, which is not the identity of the tree's sum (0)
// One element a thread, padded with 1.0f past the end: the rows' sums count the padding, so they are
// not the sums of the rows' elements and the row loop cannot stand for the store.
__global__ void block_sum(const float *x, float *out, int n) {
  __shared__ float buf[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? x[i] : 1.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}
