// The forms: &Q[e], e + Q, Q - e, an alias, a chain, a dereference, and indices that need parentheses.
__global__ void k(const float *A, float *B, int n, int shift) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float *a = &A[i * 4];
    const float *b = 2 + A;
    float *c = B - 1;
    float *d = B;
    const float *e = a + shift;
    const float *f = e + 1;
    *d = a[0] + b[i] + f[i > 2 ? 1 : 0];
    c[i << 1] = *e + a[1, 2];
  }
}
