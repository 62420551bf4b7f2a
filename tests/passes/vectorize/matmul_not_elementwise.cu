// A 2-D matrix multiply has no elementwise loop over one index.
__global__ void sgemm(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
  }
}
