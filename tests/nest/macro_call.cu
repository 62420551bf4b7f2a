// expect 1: 'AT(row, k)' calls macro 'AT', whose expansion the nest does not see
// A call of a function-like macro hides what it reads (or a barrier); the nest refuses it and names
// the pass that writes it out.
#define AT(r, c) A[(r) * K + (c)]
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += AT(row, k) * B[k * N + col];
    C[row * N + col] = s;
  }
}
