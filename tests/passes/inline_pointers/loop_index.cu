// A pointer declared in a loop's body from the loop's index: the index changes in the loop's header,
// between iterations, so the pointer's offset holds wherever it is used.
__global__ void k(const float *x, float *out, int rows, int n) {
  float s = 0.0f;
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *xr = x + (size_t)r * n;
    for (int j = threadIdx.x; j < n; j += blockDim.x) s += xr[j];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
