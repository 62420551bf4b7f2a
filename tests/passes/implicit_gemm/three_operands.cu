// A convolution whose update also reads a per-channel mask: three arrays in the loop.
__global__ void conv(int N, int C, int L, int K, int R, const float *x, const float *w, const float *m, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * K * L) {
    int l = idx % L;
    int k = (idx / L) % K;
    int n = idx / (L * K);
    float sum = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < R; r++) sum += x[(n * C + c) * (L + R - 1) + l + r] * w[(k * C + c) * R + r] * m[c];
    y[idx] = sum;
  }
}
