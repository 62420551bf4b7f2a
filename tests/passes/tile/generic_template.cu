// A template kernel still generic over its element type: refused, with what to do.
template <typename T>
__global__ void mm(const T *A, const T *B, T *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    T s = 0;
    for (int k = 0; k < K; k++) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
