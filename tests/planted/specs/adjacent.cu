// tests/planted/specs/adjacent.cu: adjacent sums through shared memory: out[i] = x[i] + x[i - 1]
// within each block of 128 (x[i] alone for a block's first element).
__global__ void adjacent(int n, const float *x, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = s[t] + (t > 0 ? s[t - 1] : 0.0f);
}
