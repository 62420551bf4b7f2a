// expect 1: the loop body's conditional statement has an else
// The update under a condition with an else branch.
__global__ void k(int M, int K, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M) {
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
      if (k < i) sum += x[i * K + k];
      else sum += 2.0f * x[i * K + k];
    }
    y[i] = sum;
  }
}
