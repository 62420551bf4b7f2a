// The element's statements use threadIdx.x as a value: with several elements per thread it
// would change meaning.
__global__ void parity(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = (threadIdx.x & 1) ? -x[i] : x[i];
}
