// expect 1: the condition reads memory ('mask[k]')
// The update under a condition that reads memory (a data-dependent sum).
__global__ void k(int M, int K, const int *mask, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      if (mask[k]) sum += x[i * K + k];
    }
    y[i] = sum;
  }
}
