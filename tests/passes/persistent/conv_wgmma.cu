// A direct NCHW convolution with stride and zero padding (the padding test around the update).
#include <cuda_runtime.h>

__global__ void conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, float *x, float *w, float *b, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= N * K * P * Q) return;
  int q = idx % Q;
  int p = (idx / Q) % P;
  int k = (idx / (Q * P)) % K;
  int n = idx / (Q * P * K);
  float sum = b[k];
  for (int c = 0; c < C; c++) {
    for (int r = 0; r < R; r++) {
      for (int s = 0; s < S; s++) {
        int ih = p * stride - pad + r;
        int iw = q * stride - pad + s;
        if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
          sum += x[((n * C + c) * H + ih) * W + iw] * w[((k * C + c) * R + r) * S + s];
        }
      }
    }
  }
  y[idx] = sum;
}
