// A column sum: thread c walks column c; neighbouring threads read neighbouring addresses.
__global__ void colsum2(const float *A, float *out, int M, int N) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < N) {
    float acc = 0.0f;
    for (int i = 0; i < M; i++) {
      acc += A[i * N + c];
    }
    out[c] = acc;
  }
}
