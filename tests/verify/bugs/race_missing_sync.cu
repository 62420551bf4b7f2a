// tests/verify/bugs/race_missing_sync.cu: race.cu without its barrier; adjacent sums through shared memory: out[i] = x[i] + x[i - 1]
// within each block of 128 (x[i] alone for the block's first element).
__global__ void adjacent(int n, const float *x, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.0f;
  // planted: the __syncthreads() between the shared-memory write and read is missing
  if (i < n) out[i] = s[t] + (t > 0 ? s[t - 1] : 0.0f);
}
