// y's address is converted to an integer: the analysis cannot follow it.
__global__ void copy(const float *x, float *y, int n, unsigned long long *where) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) where[0] = (unsigned long long)y;
  if (i < n) y[i] = x[i];
}
