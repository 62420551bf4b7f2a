// expect 1: an early return after a conditional statement
__global__ void k(int n, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0) out[i] = in[i - 1];
  if (i >= n) return;
  out[i] = in[i];
}
