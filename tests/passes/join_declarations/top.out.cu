// Every local at the top; one kept (`unused` is never named again, `n0` has its value).
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int n0 = 0, unused;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    float s = n0;
    for (unsigned int k = 0; k < K; k++) s += a[k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
