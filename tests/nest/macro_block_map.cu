// expect 0: parallel  col < N  (thread map x, block TILE, line 7)
// A block size fixed by a #define: blockIdx * TILE + threadIdx is the thread map when the kernel is
// launched with blocks of TILE threads along that axis (recorded as an assumption by a schedule).
#define TILE 16
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * TILE + threadIdx.y;
  int col = blockIdx.x * TILE + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
