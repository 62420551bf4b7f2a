// The helper reads threadIdx: its result depends on which thread calls it.
__device__ float jitter(float v) { return v + 1e-3f * (threadIdx.x & 3); }

__global__ void noisy(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = jitter(x[i]);
}
