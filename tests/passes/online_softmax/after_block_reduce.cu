// Block-per-row log-sum-exp through a shared-memory tree (blockDim.x >> 1), one result per row.
__global__ void lse(const float *x, float *out, int rows, int cols) {
  __shared__ float b[512];
  int row = blockIdx.x;
  int t = threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  for (int j = t; j < cols; j += blockDim.x) m = fmaxf(m, x[row * cols + j]);
  b[t] = m;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) b[t] = fmaxf(b[t], b[t + s]);
    __syncthreads();
  }
  float mx = b[0];
  __syncthreads();
  float acc = 0.0f;
  for (int j = t; j < cols; j += blockDim.x) acc += expf(x[row * cols + j] - mx);
  b[t] = acc;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) b[t] += b[t + s];
    __syncthreads();
  }
  if (t == 0) out[row] = mx + logf(b[0]);
}
