// expect 1: rows_tree_scaled_part.cu:9:3: note: kernel 'scaled_part' is not a row reduction: 'buf[tid] = s * 2.0f
__global__ void scaled_part(const float *x, float *y, int rows, int cols) {
  __shared__ float buf[256];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) s += x[row * cols + j];
  buf[tid] = s * 2.0f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (tid < k) buf[tid] += buf[tid + k];
    __syncthreads();
  }
  if (tid == 0) y[row] = buf[0];
}
