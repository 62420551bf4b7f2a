// tensor_core golden: the loop computes a temporary before its update.
__global__ void matmul(int M, int N, int K, const float *A, const float *B, float *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      float a = A[row * K + k];
      sum += a * B[k * N + col];
    }
    C[row * N + col] = sum;
  }
}
