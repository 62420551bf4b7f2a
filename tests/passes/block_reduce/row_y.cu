// block_reduce on a block-per-row softmax whose row is blockIdx.y (a grid of (1, rows), no guard).
#include <math.h>

__global__ void softmax_y(const float *x, float *y, int n) {
  __shared__ float buf[256];
  int row = blockIdx.y;
  int t = threadIdx.x;
  float m = -INFINITY;
  for (int j = t; j < n; j += blockDim.x) m = fmaxf(m, x[row * n + j]);
  buf[t] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] = fmaxf(buf[t], buf[t + s]);
    __syncthreads();
  }
  float mx = buf[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = t; j < n; j += blockDim.x) sum += expf(x[row * n + j] - mx);
  buf[t] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  float total = buf[0];
  for (int j = t; j < n; j += blockDim.x) y[row * n + j] = expf(x[row * n + j] - mx) / total;
}
