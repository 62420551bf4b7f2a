// The producer writes a value and its gate; the consumer multiplies the value by the gate. Placed
// after the store of 'v', the consumer would read 'g' before the producer has stored it.
__global__ void gated(int n, const float *x, const float *wg, float *v, float *g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    v[i] = 2.0f * x[i];
    g[i] = wg[i] * x[i];
  }
}

__global__ void apply_gate(int n, const float *g, float *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * g[i];
}
