// expect 0: read      in[-1 + i]  (when 1 <= i < n)
__global__ void k(int n, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i > 0) {
    out[i] = in[i] - in[i - 1];
  } else {
    out[i] = 0.0f;
  }
}
