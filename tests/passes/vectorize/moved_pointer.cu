// The output pointer is advanced to a batch's slice before the elementwise loop: its vectors'
// alignment and x[i]'s meaning both depend on a value vectorize does not follow.
__global__ void scale_batch(const float *x, float *y, int n, int batch, float s) {
  y += (size_t)batch * n;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = s * x[i];
}
