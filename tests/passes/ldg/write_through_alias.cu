// The write goes through an alias declared with auto and moved by pointer arithmetic.
__global__ void tail(float *x, int n) {
  auto p = x + n / 2;
  float v = x[threadIdx.x];
  p[threadIdx.x] = v * 2.0f;
}
