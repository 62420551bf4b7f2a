// q is never named after its declaration.
__global__ void un(const float *x, float *y) {
  int q;
  y[0] = x[0];
}
