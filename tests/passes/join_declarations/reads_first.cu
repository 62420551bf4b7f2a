// The first statement naming s reads it (an uninitialised sum): nothing to move.
__global__ void acc(const float *x, float *y, int n) {
  float s;
  s += x[0];
  y[0] = s;
}
