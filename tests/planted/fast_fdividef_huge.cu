// tests/planted/fast_fdividef_huge.cu (class 7; specs/div_huge): x / y lowered to __fdividef with
// divisors between 2^126 and 2^128, where __fdividef returns 0 (the reciprocal is flushed).
__global__ void divide(int n, const float *x, const float *y, float *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = __fdividef(x[i], y[i]);
}
