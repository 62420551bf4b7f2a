// Block-per-row softmax, the tree halved with blockDim.x >> 1, the maximum as fmaxf(v, m).
__global__ void softmax_shift(const float *x, float *y, int rows, int cols) {
  __shared__ float red[128];
  int row = blockIdx.x;
  int t = threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  for (int j = t; j < cols; j += blockDim.x) {
    float v = x[row * cols + j];
    m = fmaxf(v, m);
  }
  red[t] = m;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  float mx = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = t; j < cols; j += blockDim.x) {
    sum += __expf(x[row * cols + j] - mx);
  }
  red[t] = sum;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float total = red[0];
  for (int j = t; j < cols; j += blockDim.x) {
    y[row * cols + j] = __expf(x[row * cols + j] - mx) / total;
  }
}
