__global__ void k(const float *x, float *out, int n) {
  int r = blockIdx.x;
  const float *p = x + r * n;
  r = r + 1;
  out[blockIdx.x] = p[0];
}
