// examples/softmax/kernel.cu: softmax over dim 1 of x (rows, cols), fp32, row-major:
//   y[r][j] = exp(x[r][j] - max_j x[r][j]) / sum_j exp(x[r][j] - max_j x[r][j])
// Subtracting the row maximum keeps exp from overflowing. Written plainly: one block of 256
// threads per row; each thread strides over the row, then a shared-memory tree reduction gives
// the block the row's maximum, a second one the sum of the exponentials, and a third sweep over
// the row writes the result (the row is read three times).
#include <cuda_runtime.h>

__global__ void softmax(int rows, int cols, float *x, float *y) {
  __shared__ float buf[256];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row >= rows) return;

  float m = -INFINITY;
  for (int j = tid; j < cols; j += blockDim.x) {
    m = fmaxf(m, x[row * cols + j]);
  }
  buf[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) {
      buf[tid] = fmaxf(buf[tid], buf[tid + s]);
    }
    __syncthreads();
  }
  float rowmax = buf[0];
  __syncthreads();

  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) {
    sum += expf(x[row * cols + j] - rowmax);
  }
  buf[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) {
      buf[tid] += buf[tid + s];
    }
    __syncthreads();
  }
  float rowsum = buf[0];

  for (int j = tid; j < cols; j += blockDim.x) {
    y[row * cols + j] = expf(x[row * cols + j] - rowmax) / rowsum;
  }
}

void launch_softmax(int rows, int cols, float *x, float *y, cudaStream_t stream) {
  softmax<<<rows, 256, 0, stream>>>(rows, cols, x, y);
}
