// expect 0: parallel  i < n  (grid-stride loop, thread map x, block blockDim.x
__global__ void k(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = 2.0f * x[i];
}
