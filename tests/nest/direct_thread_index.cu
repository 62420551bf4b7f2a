// expect 1: uses threadIdx or blockIdx directly
__global__ void k(const float *A, float *C, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0;
    for (int k = 0; k < n; k++) s += A[k * n + threadIdx.x];
    C[i] = s;
  }
}
