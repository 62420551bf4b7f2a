// tests/verify/specs/double_kernel.cu: a kernel over doubles, for dtype_double.lua (an fp32
// buffer must not be accepted for a double * parameter).
__global__ void scale(int n, const double *__restrict__ x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0 * x[i];
}
