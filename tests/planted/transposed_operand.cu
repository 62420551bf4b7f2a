// tests/planted/transposed_operand.cu (usual; examples/matmul): reads B as if it were stored
// transposed (B[col * K + k] instead of B[k * N + col]).
__global__ void matmul(int M, int N, int K, float *A, float *B, float *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[col * K + k];
    C[row * N + col] = sum;
  }
}
