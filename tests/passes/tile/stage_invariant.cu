// A row-scaled product, C = diag(s) * A * B, with the row's scale read inside the loop.
__global__ void scaled_mm(int M, int N, int K, const float *s, const float *A, const float *B, float *C) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float t = 0.0f;
    for (int k = 0; k < K; ++k) t += s[i] * A[i * K + k] * B[k * N + j];
    C[i * N + j] = t;
  }
}
