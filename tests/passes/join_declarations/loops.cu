// One index for several loops, each its own; a while loop's temporary, declared in its body.
__global__ void rows(const float *x, float *y, int n) {
  int j, t;
  float m, v;
  m = x[0];
  for (j = 1; j < n; j++) m = fmaxf(m, x[j]);
  for (j = 0; j < n; j++) {
    v = x[j] - m;
    y[j] = v;
  }
  int left = n;
  while (left > 0) {
    t = left - 1;
    y[t] = y[t] * 2.0f;
    left = t;
  }
}
