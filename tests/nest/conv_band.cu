// expect 0: reduce    s in [0, S)  (loop at line 15)
// A direct convolution: a flat index split into four axes, a band of three reduction loops, the
// update under the zero padding's condition.
__global__ void conv(int N, int C, int H, int W, int K, int R, int S, int P, int Q, int pad,
                     const float *x, const float *w, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * P * Q) return;
  int q = idx % Q;
  int p = (idx / Q) % P;
  int k = (idx / (Q * P)) % K;
  int n = idx / (Q * P * K);
  float sum = 0.0f;
  for (int c = 0; c < C; c++)
    for (int r = 0; r < R; r++)
      for (int s = 0; s < S; s++) {
        int ih = p - pad + r, iw = q - pad + s;
        if (ih >= 0 && ih < H && iw >= 0 && iw < W) sum += x[((n * C + c) * H + ih) * W + iw] * w[((k * C + c) * R + r) * S + s];
      }
  y[idx] = sum;
}
