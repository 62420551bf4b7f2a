// expect 1: statements follow the grid-stride loop over 'i'
__global__ void k(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = x[i];
  y[0] = 1.0f;
}
