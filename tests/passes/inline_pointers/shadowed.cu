__global__ void k(const float *x, float *out, int n) {
  int r = blockIdx.x;
  const float *p = x + r * n;
  float s = 0.0f;
  for (int j = 0; j < 4; ++j) {
    int r = j;
    s += p[r];
  }
  out[blockIdx.x] = s;
}
