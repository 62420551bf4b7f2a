// tests/planted/fast_expf_small.cu (correct; specs/exp_small): the same lowering on arguments in
// [-1, 1] under the fast-math tolerance 1e-5: __expf is within 2-3 ulp there.
__global__ void exp_all(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __expf(x[i]);
}
