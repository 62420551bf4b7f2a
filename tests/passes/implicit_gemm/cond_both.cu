// The update's condition compares an output position with an output channel: no operand's loads
// can carry it.
__global__ void conv(int N, int C, int L, int K, int R, const float *x, const float *w, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * K * L) {
    int l = idx % L;
    int k = (idx / L) % K;
    int n = idx / (L * K);
    float sum = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < R; r++) {
        int pos = l + r;
        if (pos < k + L) sum += x[(n * C + c) * (L + R - 1) + pos] * w[(k * C + c) * R + r];
      }
    y[idx] = sum;
  }
}
