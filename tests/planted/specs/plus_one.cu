// tests/planted/specs/plus_one.cu: out[i] = x[i] + 1.
__global__ void plus_one(int n, const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + 1.0f;
}
