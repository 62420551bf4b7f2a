// tests/planted/specs/block_max.cu: the maximum of each chunk of 256 elements (a tree in shared
// memory), out[blockIdx.x].
__global__ void block_max(int n, const float *x, float *out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : -INFINITY;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (t < k) s[t] = fmaxf(s[t], s[t + k]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
