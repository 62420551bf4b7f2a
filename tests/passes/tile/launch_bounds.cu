// A kernel that already states its launch bounds (for its 8 x 16 blocks), with a guard written
// with the bound first. The schedule launches 256 threads, so the bounds must change with it; the
// guard is still an interval in its axis, so interior tiles load without per-element guards.
__global__ void __launch_bounds__(128) mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (M > i && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
    C[i * N + j] = s;
  }
}
