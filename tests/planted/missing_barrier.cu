// tests/planted/missing_barrier.cu (class 5 / usual; specs/adjacent): the __syncthreads() between
// the shared-memory write and the neighbour's read is missing.
__global__ void adjacent(int n, const float *x, float *out) {
  __shared__ float s[128];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0.0f;
  if (i < n) out[i] = s[t] + (t > 0 ? s[t - 1] : 0.0f);
}
