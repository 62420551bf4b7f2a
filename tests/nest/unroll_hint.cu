// expect 0: reduce    k in [0, K)  (loop at line 9)
// `#pragma unroll N` above the reduction loop is a hint the schedule's own loops replace.
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    float acc = 0.0f;
#pragma unroll 8
    for (int k = 0; k < K; k++) acc += A[i * K + k] * B[k * N + j];
    C[i * N + j] = acc;
  }
}
