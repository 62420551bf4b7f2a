// The producer stores its result into two buffers in one chained assignment: the store of 't' is
// not a statement the consumer's statement could follow.
__global__ void saxpy2(int n, float a, const float *x, const float *y, float *t, float *keep) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keep[i] = t[i] = a * x[i] + y[i];
}

__global__ void square(int n, float *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = t[i] * t[i];
}
