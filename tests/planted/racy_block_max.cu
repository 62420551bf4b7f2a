// tests/planted/racy_block_max.cu (class 5; specs/block_max): every thread compares its element
// with one shared maximum and overwrites it when larger, with no atomic: threads (and warps)
// race on the one value between the test and the write.
__global__ void block_max(int n, const float *x, float *out) {
  __shared__ float m;
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  if (t == 0) m = -INFINITY;
  __syncthreads();
  if (i < n && x[i] > m) m = x[i];
  __syncthreads();
  if (t == 0) out[blockIdx.x] = m;
}
