__global__ void k(const float *x, const int *idx, float *out, int n) {
  const float *p = x + blockIdx.x * n;
  const int *q = idx + blockIdx.x;
  out[blockIdx.x] = p[q[0]];
}
