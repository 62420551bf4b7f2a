// tests/planted/specs/exp.cu: y = expf(x), elementwise.
__global__ void exp_all(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = expf(x[i]);
}
