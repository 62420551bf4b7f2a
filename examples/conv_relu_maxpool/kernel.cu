// examples/conv_relu_maxpool/kernel.cu: conv2d, then ReLU, then a 3x3 max-pool with stride 2, in
// fp32, as three kernels and three launches (the way it is first written, before any fusion).
//   x: input (N, C, H, W)   w: weights (K, C, R, S)   b: bias (K)
//   t: conv output (N, K, P, Q), P = (H + 2*pad - R) / stride + 1, Q = (W + 2*pad - S) / stride + 1
//      (a temporary; ReLU is applied to it in place)
//   y: pooled output (N, K, PO, QO), PO = (P - 3) / 2 + 1, QO = (Q - 3) / 2 + 1 (no padding)
// NCHW, contiguous. One thread per output element of each kernel, 256 threads a block.
#include <cuda_runtime.h>

__global__ void conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                       int P, int Q, float *x, float *w, float *b, float *t) {
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
  t[idx] = sum;
}

__global__ void relu_inplace(int n, float *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    t[i] = fmaxf(t[i], 0.0f);
  }
}

// Each output is the maximum of a 3x3 window of t at stride 2; the windows never leave t.
__global__ void maxpool2d(int NK, int P, int Q, int PO, int QO, float *t, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= NK * PO * QO) return;
  int qo = idx % QO;
  int po = (idx / QO) % PO;
  int nk = idx / (QO * PO);
  float m = t[(nk * P + po * 2) * Q + qo * 2];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      m = fmaxf(m, t[(nk * P + po * 2 + i) * Q + qo * 2 + j]);
    }
  }
  y[idx] = m;
}

void launch_conv_relu_maxpool(int N, int C, int H, int W, int K, int R, int S, int stride, int pad,
                              float *x, float *w, float *b, float *t, float *y,
                              cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int PO = (P - 3) / 2 + 1;
  int QO = (Q - 3) / 2 + 1;
  int block = 256;
  int nconv = N * K * P * Q;
  int npool = N * K * PO * QO;
  conv2d<<<(nconv + block - 1) / block, block, 0, stream>>>(N, C, H, W, K, R, S, stride, pad, P,
                                                             Q, x, w, b, t);
  relu_inplace<<<(nconv + block - 1) / block, block, 0, stream>>>(nconv, t);
  maxpool2d<<<(npool + block - 1) / block, block, 0, stream>>>(N * K, P, Q, PO, QO, t, y);
}
