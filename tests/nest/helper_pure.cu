// expect 0: update    s += mul(A[row * K + k], B[k * N + col])
// A helper that computes a value from its arguments (its own locals assigned) is read as a call.
__device__ float mul(float a, float b) {
  float r = a;
  r *= b;
  return r;
}
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += mul(A[row * K + k], B[k * N + col]);
    C[row * N + col] = s;
  }
}
