// expect 1: 'tx', a name for threadIdx or blockIdx, is used other than to compute a thread index
// A name for threadIdx.x read in the computation itself: the thread's own value, which a schedule
// would change.
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * blockDim.y + ty;
  int col = blockIdx.x * blockDim.x + tx;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc + (tx == 0 ? 1.0f : 0.0f);
  }
}
