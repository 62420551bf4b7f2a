// expect 1: 5:7: error: kernel 'k' cannot be lifted into a nest: the condition reads memory ('mask[i]')
__global__ void k(int n, const int *mask, const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (mask[i]) out[i] = in[i];
  else out[i] = 0.0f;
}
