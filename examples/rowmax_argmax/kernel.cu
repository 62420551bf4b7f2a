// examples/rowmax_argmax/kernel.cu: for each row of x (rows, cols), fp32, row-major, the largest
// value and the first column at which it occurs:
//   vmax[r] = max_j x[r][j],  amax[r] = min { j : x[r][j] == vmax[r] }  (int32)
// Written plainly: one thread per row (256 threads a block), each walking its row and keeping
// the best so far; the comparison is strict, so a later equal value does not move the index.
// Neighbouring threads read addresses cols floats apart, so the loads are not coalesced.
#include <cuda_runtime.h>

__global__ void rowmax_argmax(int rows, int cols, float *x, float *vmax, int *amax) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float m = -INFINITY;
    int arg = 0;
    for (int j = 0; j < cols; j++) {
      float v = x[row * cols + j];
      if (v > m) {
        m = v;
        arg = j;
      }
    }
    vmax[row] = m;
    amax[row] = arg;
  }
}

void launch_rowmax_argmax(int rows, int cols, float *x, float *vmax, int *amax,
                          cudaStream_t stream) {
  int block = 256;
  int grid = (rows + block - 1) / block;
  rowmax_argmax<<<grid, block, 0, stream>>>(rows, cols, x, vmax, amax);
}
