__global__ void k(const float *x, float *out, int n) {
  const float *p = x + blockIdx.x * n, *q = x;
  int z = 0;
  out[blockIdx.x] = p[0] + q[z];
}
