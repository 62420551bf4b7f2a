__global__ void k(const float *x, float *out, int n) {
  const char *p = x + blockIdx.x;
  out[blockIdx.x] = p[0];
}
