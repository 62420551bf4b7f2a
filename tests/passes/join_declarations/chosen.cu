// Only the local named moves.
__global__ void scale(const float *x, float *y, int n) {
  int i, j;
  i = blockIdx.x * blockDim.x + threadIdx.x;
  j = i;
  if (j < n) y[j] = 2.0f * x[i];
}
