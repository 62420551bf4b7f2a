// Every local at the top; one kept (`unused` is never named again, `n0` has its value).
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int n0 = 0, row, col, unused;
  unsigned int k;
  const float *a;
  float s;
  row = blockIdx.y * blockDim.y + threadIdx.y;
  col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    a = A + row * K;
    s = n0;
    for (k = 0; k < K; k++) s += a[k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
