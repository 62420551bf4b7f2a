__global__ void produce(int n, float *y, float *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = 2.0f * y[i];
}

__global__ void copy_out(int n, const float *t, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = t[i];
}
