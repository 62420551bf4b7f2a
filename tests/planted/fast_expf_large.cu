// tests/planted/fast_expf_large.cu (class 7; specs/exp_large): expf lowered to __expf on
// arguments up to 80, under the strict fp32 tolerance: __expf's error grows with |x| (the
// product x * log2(e) is rounded to fp32), to about 4e-6 relative there.
__global__ void exp_all(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __expf(x[i]);
}
