// A guard that is not written `axis op bound` (i + 2 < M + 2): it is still a linear comparison in
// one axis, so it holds on an interval of rows, and a tile within the bounds at its first and last
// rows loads without per-element guards.
__global__ void __launch_bounds__(128) mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && i + 2 < M + 2 && j < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];
    C[i * N + j] = s;
  }
}
