// expect 1: '#pragma nounroll
// A pragma other than an unroll hint is not read (what it asks of the loop would be lost).
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    float acc = 0.0f;
#pragma nounroll
    for (int k = 0; k < K; k++) acc += A[i * K + k] * B[k * N + j];
    C[i * N + j] = acc;
  }
}
