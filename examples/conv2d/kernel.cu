// examples/conv2d/kernel.cu: direct 2-D convolution (cross-correlation, as in PyTorch) in fp32.
//   x: input  (N, C, H, W)      w: weights (K, C, R, S)      b: bias (K)
//   y: output (N, K, P, Q) with P = (H + 2*pad - R) / stride + 1, Q = (W + 2*pad - S) / stride + 1
// NCHW, contiguous. Out-of-range input positions are zero padding. Written plainly: one thread
// per output element (a 1-D grid over N*K*P*Q, 256 threads a block), each thread looping over
// the C x R x S window with the index arithmetic recomputed in the innermost loop.
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

void launch_conv2d(int N, int C, int H, int W, int K, int R, int S, int stride, int pad, float *x,
                   float *w, float *b, float *y, cudaStream_t stream) {
  int P = (H + 2 * pad - R) / stride + 1;
  int Q = (W + 2 * pad - S) / stride + 1;
  int total = N * K * P * Q;
  int block = 256;
  int grid = (total + block - 1) / block;
  conv2d<<<grid, block, 0, stream>>>(N, C, H, W, K, R, S, stride, pad, P, Q, x, w, b, y);
}
