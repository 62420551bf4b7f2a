// expect 1: the loop body holds 'prev = A[i * n + k]
__global__ void k(const float *A, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0, prev = 0;
    for (int k = 0; k < n; k++) {
      s += A[i * n + k] * prev;
      prev = A[i * n + k];
    }
    C[i] = s;
  }
}
