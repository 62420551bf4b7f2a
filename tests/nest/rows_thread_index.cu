// expect 1: rows_thread_index.cu:10:30: note: kernel 'rowsum_tid' is not a row reduction: 'threadIdx.x' is used directly in the row's work
// threadIdx.x used directly in the row loop of a block-per-row kernel.
__global__ void rowsum_tid(const float *x, float *y, int rows, int cols) {
  __shared__ float buf[256];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) {
    s += x[row * cols + j] * threadIdx.x;
  }
  buf[tid] = s;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (tid < k) buf[tid] += buf[tid + k];
    __syncthreads();
  }
  if (tid == 0) y[row] = buf[0];
}
