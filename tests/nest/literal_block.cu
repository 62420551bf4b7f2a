// expect 0: parallel  col < n  (thread map x, block 16
__global__ void k(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * 16 + threadIdx.x;
  int row = threadIdx.y + blockDim.y * blockIdx.y;
  if (row < n && col < n) {
    float s = 0;
    for (int k = 0; k <= n - 1; ++k) s = s + A[row * n + k] * B[k * n + col];
    C[row * n + col] = s;
  }
}
