// tests/planted/specs/prev_sum.cu: out[i] = x[i] + x[i - 1] over the whole buffer (x[0] alone).
__global__ void prev_sum(int n, const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + (i > 0 ? x[i - 1] : 0.0f);
}
