// tests/planted/uninit_accumulator.cu (usual; examples/matmul): the accumulator is declared but
// never set to 0, so each sum starts from whatever the register held.
__global__ void matmul(int M, int N, int K, float *A, float *B, float *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float sum;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}
