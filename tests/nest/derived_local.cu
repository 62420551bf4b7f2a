// expect 0: read      A[n * row + k]  (in the loop)
__global__ void k(const float *A, const float *B, float *C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int arow = row * n;
  if (row >= n || col >= n) return;
  float s = 0;
  for (int k = 0; k < n; k++) s -= A[arow + k] * B[k * n + col];
  C[row * n + col] = s;
}
