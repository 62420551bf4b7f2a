// expect 1: after the inner loop
// A statement after the inner loop of a band.
__global__ void k(int M, int R, int S, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M) {
    float sum = 0.0f;
    for (int r = 0; r < R; r++) {
      for (int s = 0; s < S; s++) sum += x[i * R * S + r * S + s];
      sum *= 0.5f;
    }
    y[i] = sum;
  }
}
