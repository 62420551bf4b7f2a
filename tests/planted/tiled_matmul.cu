// tests/planted/tiled_matmul.cu (correct; examples/matmul): 16 x 16 tiles of A and B staged in
// shared memory, a barrier after each load and after each use; k in the same order as the
// original, so the sums are the same.
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
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}
