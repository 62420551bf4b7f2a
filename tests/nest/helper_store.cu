// expect 1: calls function 'counted' of this file, which the nest cannot move: it stores to 'hits[0]'
// A helper that writes memory: a tile's threads past the guard would run it too.
__device__ float counted(float *hits, float a, float b) { hits[0] += 1.0f; return a * b; }
__global__ void mm(const float *A, const float *B, float *C, float *hits, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += counted(hits, A[row * K + k], B[k * N + col]);
    C[row * N + col] = s;
  }
}
