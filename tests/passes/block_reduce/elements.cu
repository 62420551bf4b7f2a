// One element a thread (the ternary form), the index written with a literal block size: each
// block's largest value through an fmaxf tree.
__global__ void tile_max(const float *v, float *tile_out, int len) {
  __shared__ float best[256];
  int t = threadIdx.x;
  int at = blockIdx.x * 256 + t;
  best[t] = at < len ? v[at] : -INFINITY;
  __syncthreads();
  for (int h = 128; h > 0; h /= 2) {
    if (t < h) best[t] = fmaxf(best[t], best[t + h]);
    __syncthreads();
  }
  if (t == 0) tile_out[blockIdx.x] = best[0];
}
