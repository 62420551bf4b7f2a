// expect 1: the flat index 'idx' is split by divisors that do not chain (no part divides it by 'Q')
// The middle part divides by W where the inner part's extent is Q.
__global__ void k(int N, int P, int Q, int W, const float *x, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * P * Q) {
    int q = idx % Q;
    int p = (idx / W) % P;
    int n = idx / (Q * P);
    y[idx] = x[(n * P + p) * Q + q];
  }
}
