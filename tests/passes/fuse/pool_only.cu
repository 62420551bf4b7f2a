// A batched product and a 2 x 2 max-pool of it that starts from -INFINITY (the pool fuses: its window
// read digit by digit against the product's store).
#include <cuda_runtime.h>

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
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      best = fmaxf(best, t[(bb * M + 2 * mo + i) * N + 2 * no + j]);
  y[idx] = best;
}
