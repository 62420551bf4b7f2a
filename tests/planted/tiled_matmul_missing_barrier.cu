// tests/planted/tiled_matmul_missing_barrier.cu (class 5; examples/matmul): the tiled kernel
// without the barrier after the inner product, so a fast thread overwrites a tile its
// neighbours are still reading.
#define TILE 16
__global__ void matmul(int M, int N, int K, float *A, float *B, float *C) {
  __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int col = blockIdx.x * TILE + tx, row = blockIdx.y * TILE + ty;
  float sum = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    a_tile[ty][tx] = row < M && k0 + tx < K ? A[row * K + k0 + tx] : 0.0f;
    b_tile[ty][tx] = k0 + ty < K && col < N ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE && k0 + k < K; k++) sum += a_tile[ty][k] * b_tile[k][tx];
  }
  if (row < M && col < N) C[row * N + col] = sum;
}
