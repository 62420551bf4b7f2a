// tests/planted/cross_block_race.cu (class 5; specs/int_sum): each block sums its chunk correctly
// (shared memory, barriers), then thread 0 adds the block's sum to out[0] without an atomic:
// blocks of one launch are not ordered, so updates of different blocks race.
__global__ void int_sum(int n, const int *x, int *out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[0] = out[0] + s[0];
}
