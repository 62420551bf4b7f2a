// A guard the interior check cannot read as `axis op bound` (i + 2 < M + 2, an interval in fact):
// the check of a tile at its first and last elements is not known to cover such a guard, so the
// staged loads keep their per-element guards (correct, and slower).
__global__ void __launch_bounds__(128) mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && i + 2 < M + 2 && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
    C[i * N + j] = s;
  }
}
