// A residual: r[i] = b[i] - sum_j A[i][j] x[j], accumulated downwards in global memory.
__global__ void residual(int n, const double *A, const double *x, double *r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = (double)0;
  for (int j = 0; j < n; ++j) acc -= A[i * n + j] * x[j];
  r[i] += acc;
}
