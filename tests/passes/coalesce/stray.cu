__global__ void k(const float *x, float *y, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < m) y[i * m + j] = x[i * m + j] + (threadIdx.x == 0 ? 1.0f : 0.0f);
}
