// b is offset from a; inlining a alone would leave b's declaration without a.
__global__ void k(const float *x, float *out, int n) {
  const float *a = x + blockIdx.x * n;
  const float *b = a + 1;
  float *o = out;
  out[blockIdx.x] = a[0] + b[0];
}
