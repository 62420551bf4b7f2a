// flag is polled through a volatile pointer: the read-only cache would return a stale value.
__global__ void wait_then_copy(volatile int *flag, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  while (flag[0] == 0) {}
  if (i < n) y[i] = x[i];
}
