// expect 0: parallel  col < N  (thread map x, block blockDim.x, line 6)
// Names for threadIdx and blockIdx, read only to build the thread maps.
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int tx = threadIdx.x, ty = threadIdx.y, by = blockIdx.y;
  int row = by * blockDim.y + ty;
  int col = blockIdx.x * blockDim.x + tx;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
