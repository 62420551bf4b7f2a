// A CSR row: the row's start is read from memory.
__global__ void k(const float *vals, const int *starts, float *out, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    const float *v = vals + starts[r];
    out[r] = v[0];
  }
}
