// j is first named by a while loop's condition, before any assignment.
__global__ void wc(const float *x, float *y, int n) {
  int j;
  while (j < n) {
    y[j] = x[j];
    j = j + 1;
  }
}
