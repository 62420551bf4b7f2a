// expect 0: batch     blockIdx.z  (uniform over each block
// A batched product: blockIdx.z, read through a local, is a value uniform over each block (the
// batch), not a thread map; the nest's forms hold it as a symbol.
__global__ void bmm(int M, int N, int K, const float *A, const float *B, float *C) {
  int b = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[b * M * K + row * K + k] * B[b * K * N + k * N + col];
    C[b * M * N + row * N + col] = s;
  }
}
