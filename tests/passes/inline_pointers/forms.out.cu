// The forms: &Q[e], e + Q, Q - e, an alias, a chain, a dereference, and indices that need parentheses.
__global__ void k(const float *A, float *B, int n, int shift) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    B[0] = A[i * 4 + 0] + A[2 + i] + A[i * 4 + shift + 1 + (i > 2 ? 1 : 0)];
    B[-(1) + (i << 1)] = A[i * 4 + shift] + A[i * 4 + (1, 2)];
  }
}
