// expect 1: 'blockIdx.x * bs + threadIdx.x' uses threadIdx or blockIdx other than as blockIdx * blockDim + threadIdx
// A block size the kernel is passed is not known where the nest is read: not a thread map.
__global__ void scale(const float *x, float *y, int n, int bs) {
  int i = blockIdx.x * bs + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
