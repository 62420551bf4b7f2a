// tests/planted/specs/div.cu: z = x / y, elementwise.
__global__ void divide(int n, const float *x, const float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] / y[i];
}
