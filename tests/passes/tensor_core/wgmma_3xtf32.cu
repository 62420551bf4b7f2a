// tensor_core golden: C = A * B in fp32, one thread per element of C.

__global__ void matmul(int M, int N, int K, float *A, float *B, float *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      sum += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = sum;
  }
}

void launch_matmul(int M, int N, int K, float *A, float *B, float *C, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  matmul<<<grid, block, 0, stream>>>(M, N, K, A, B, C);
}
