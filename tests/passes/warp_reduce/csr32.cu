// CSR sparse matrix-vector product, a warp per row, one warp a block.
__global__ void spmv(const int *rp, const int *ci, const float *val, const float *x, float *y, int m) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {
    float s = 0.0f;
    int lo = rp[row];
    int hi = rp[row + 1];
    for (int e = lo; e < hi; e++) s += val[e] * x[ci[e]];
    y[row] = s;
  }
}
