// A 2 x 2 max-pool whose stride is a macro (STEP * mo): the symbol stays in the read's strides, which then do not
// divide one another: refused (the window's size from a macro fuses: tests/fixtures/fuse_pool/kernel_macro.cu).
#include <cuda_runtime.h>

#define WIN 2
#define STEP 2

__global__ void bmm(int B, int M, int N, int K, const float *a, const float *b, float *t) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y;
  int bb = blockIdx.z * blockDim.z + threadIdx.z;
  if (n >= N || m >= M || bb >= B) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += a[(bb * M + m) * K + k] * b[k * N + n];
  t[(bb * M + m) * N + n] = acc;
}

__global__ void pool2(int BB, int M, int N, int MO, int NO, const float *t, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= BB * MO * NO) return;
  int no = idx % NO;
  int mo = (idx / NO) % MO;
  int bb = idx / (NO * MO);
  float best = -INFINITY;
  for (int i = 0; i < WIN; i++)
    for (int j = 0; j < WIN; j++)
      best = fmaxf(best, t[(bb * M + STEP * mo + i) * N + STEP * no + j]);
  y[idx] = best;
}
