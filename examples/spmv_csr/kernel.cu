// examples/spmv_csr/kernel.cu: y = A * x for a sparse m x n fp32 matrix A in CSR form: row r's
// non-zeros are values[rowptr[r] .. rowptr[r+1]) in columns colind[...] (int32). x has n elements
// and y has m. Written plainly: one thread per row (256 threads a block), each looping over its
// row's non-zeros and gathering x.
#include <cuda_runtime.h>

__global__ void spmv_csr(int m, int *rowptr, int *colind, float *values, float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float sum = 0.0f;
    for (int e = rowptr[row]; e < rowptr[row + 1]; e++) {
      sum += values[e] * x[colind[e]];
    }
    y[row] = sum;
  }
}

void launch_spmv_csr(int m, int *rowptr, int *colind, float *values, float *x, float *y,
                     cudaStream_t stream) {
  int block = 256;
  int grid = (m + block - 1) / block;
  spmv_csr<<<grid, block, 0, stream>>>(m, rowptr, colind, values, x, y);
}
