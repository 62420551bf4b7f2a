// expect 1: starts at a thread index but steps by 'i += blockDim.x'
__global__ void k(int n, const float *x, float *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x) y[i] = x[i];
}
