// examples/softmax_rowthread/kernel.cu: softmax over dim 1 of x (rows, cols), fp32, row-major:
//   y[r][j] = exp(x[r][j] - max_j x[r][j]) / sum_j exp(x[r][j] - max_j x[r][j])
// The same function as examples/softmax, written the slowest common way: one thread per row
// (256 threads a block). Each thread walks its whole row three times (the maximum, the sum of
// the exponentials, then the writes, computing each exponential twice); neighbouring threads
// read addresses cols floats apart, so no load is coalesced, and with 4096 rows only 16 blocks
// run.
#include <cuda_runtime.h>

__global__ void softmax_rowthread(int rows, int cols, float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float m = -INFINITY;
    for (int j = 0; j < cols; j++) {
      m = fmaxf(m, x[row * cols + j]);
    }
    float s = 0.0f;
    for (int j = 0; j < cols; j++) {
      s += expf(x[row * cols + j] - m);
    }
    for (int j = 0; j < cols; j++) {
      y[row * cols + j] = expf(x[row * cols + j] - m) / s;
    }
  }
}

void launch_softmax_rowthread(int rows, int cols, float *x, float *y, cudaStream_t stream) {
  int block = 256;
  int grid = (rows + block - 1) / block;
  softmax_rowthread<<<grid, block, 0, stream>>>(rows, cols, x, y);
}
