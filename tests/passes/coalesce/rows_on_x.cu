// C = A * B with x along the rows of C: each warp writes 32 elements a row apart.
__global__ void mm_rows_x(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
