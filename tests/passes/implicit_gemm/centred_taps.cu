// A 1-D convolution over channels written with centred taps (t from -HALF to HALF), as filters
// are often indexed: the tap loop does not start at 0.
#define HALF 2
#define TAPS (2 * HALF + 1)

__global__ void conv1d_same(int N, int C, int L, int K, const float *x, const float *w, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * L) return;
  int l = idx % L;
  int k = (idx / L) % K;
  int n = idx / (L * K);
  float acc = 0.0f;
  for (int c = 0; c < C; ++c) {
    for (int t = -HALF; t <= HALF; ++t) {
      int pos = l + t;
      if (pos >= 0 && pos < L) acc += x[(n * C + c) * L + pos] * w[(k * C + c) * TAPS + t + HALF];
    }
  }
  y[idx] = acc;
}
