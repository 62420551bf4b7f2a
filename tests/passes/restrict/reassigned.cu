// x is pointed at y's memory for odd blocks: marking both __restrict__ would be wrong.
__global__ void pick(float *x, float *y, int n) {
  if (blockIdx.x % 2) x = y;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
