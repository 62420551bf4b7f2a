// The kernel is declared before its definition: adding const to the definition alone would
// declare a second kernel, so only __restrict__ is added.
__global__ void neg(const int n, float *x, float *y);

__global__ void neg(const int n, float *__restrict__ x, float *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = -x[i];
}
