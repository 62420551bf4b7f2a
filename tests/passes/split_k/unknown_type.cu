// The accumulator's type is a typedef: split_k does not resolve it, so it cannot size the
// workspace that holds the parts' partial results.
typedef float real;

__global__ void matmul_r(int M, int N, int K, const real *A, const real *B, real *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    real sum = 0;
    for (int k = 0; k < K; k++) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = sum;
  }
}
