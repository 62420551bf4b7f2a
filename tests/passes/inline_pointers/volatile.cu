// A flag polled through a volatile pointer: written as an index of the plain parameter, the load
// could be hoisted out of the loop.
__global__ void k(float *x, float *out) {
  const volatile float *flag = x;
  while (flag[0] < 2.0f) {
  }
  out[0] = 1.0f;
}
