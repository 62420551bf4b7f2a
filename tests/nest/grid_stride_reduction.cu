// expect 0: reduce    k in [0, n)
__global__ void k(int m, int n, const float *A, const float *x, float *y) {
  for (int row = blockIdx.x * blockDim.x + threadIdx.x; row < m; row += blockDim.x * gridDim.x) {
    float s = 0.0f;
    for (int k = 0; k < n; k++) s += A[row * n + k] * x[k];
    y[row] = s;
  }
}
