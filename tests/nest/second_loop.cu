// expect 1: a second loop (the nest reads one reduction loop)
__global__ void k(const float *A, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0, t = 0;
    for (int k = 0; k < n; k++) s += A[i * n + k];
    for (int k = 0; k < n; k++) t += A[k * n + i];
    C[i] = s + t;
  }
}
