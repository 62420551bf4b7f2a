// A branch without braces assigns s; the statement after it reads it.
__global__ void nb(const float *x, float *y, int n) {
  float s;
  if (n > 0) s = x[0];
  else s = 0.0f;
  y[0] = s;
}
