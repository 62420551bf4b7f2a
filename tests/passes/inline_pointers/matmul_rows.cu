// A matmul walking A's row and B's column with pointer locals; only the names given are inlined.
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    const float *b = B + col;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += a[k] * b[k * N];
    C[row * N + col] = s;
  }
}
