// x is only read, in the kernel and by a helper taking const float *: the kernel's own loads are
// rewritten (loads inside helpers are not). bias is read through a pointer alias.
__device__ float first(const float *p) { return p[0]; }

__global__ void scale_rows(const float *x, const float *bias, float *y, int cols) {
  const float *row = x + blockIdx.x * cols;
  const float *b = bias + blockIdx.x;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[blockIdx.x * cols + c] = __ldg(&row[c]) / first(row) + __ldg(b);
}
