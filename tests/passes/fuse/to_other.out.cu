// A flat-indexed producer, and a consumer that scales its output into another array with a per-element
// bias; the consumer's scalar and arrays are parameters of the producer too (under the same names).
__global__ void square(int n, float scale, const float *x, const float *bias, float *t, float *y) {
  int idx = blockIdx.x * 128 + threadIdx.x;
  if (idx >= n) return;
  float v = x[idx];
  t[idx] = v * v;
  // krewrite fuse: affine, at the element just stored
  y[(idx)] = t[(idx)] * scale + bias[(idx)];
}

__global__ void affine(int n, float scale, const float *t, const float *bias, float *y) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) {
    y[e] = t[e] * scale + bias[e];
  }
}
