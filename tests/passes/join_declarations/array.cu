// An array is not assigned as a whole.
__global__ void arr(const float *x, float *y) {
  float t[4];
  t[0] = x[0];
  y[0] = t[0];
}
