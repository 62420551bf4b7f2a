// expect 0: parallel  p < P  ((idx / Q) % P, thread map x
// A flat index split into four parts (the middle ones as (idx / step) % extent).
__global__ void conv(int N, int C, int H, int W, int K, int R, int S, int P, int Q,
                     const float *x, const float *w, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < N * K * P * Q) {
    int q = idx % Q;
    int p = (idx / Q) % P;
    int k = (idx / (Q * P)) % K;
    int n = idx / (P * Q * K);
    float sum = 0.0f;
    for (int c = 0; c < C; c++)
      for (int r = 0; r < R; r++)
        for (int s = 0; s < S; s++) sum += x[((n * C + c) * H + p + r) * W + q + s] * w[((k * C + c) * R + r) * S + s];
    y[idx] = sum;
  }
}
