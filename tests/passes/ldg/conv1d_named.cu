// Named pointers only: w goes through __ldg, x stays as it is. Loads inside a loop, an index
// that is itself a load (idx), and a dereference through an alias.
__global__ void conv1d(const float *x, const float *w, const int *idx, const float *bias,
                       float *y, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float *b = bias + blockIdx.y;
  float acc = *b;
  for (int j = 0; j < k; j++) acc += w[j] * x[idx[i] + j];
  y[i] = acc;
}
