// tests/planted/specs/two_scales.cu: two kernels whose names share a prefix, both launched:
// scale (y = a*x) and scale2 (z = 2*y), one thread per element behind an `if`.
__global__ void scale(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

__global__ void scale2(int n, const float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 2.0f * y[i];
}
