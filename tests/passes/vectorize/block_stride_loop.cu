// The loop steps by blockDim.x only (a block-stride loop), not a grid-stride loop.
__global__ void rowscale(float *x, const float *s, int cols) {
  float *row = x + blockIdx.x * cols;
  for (int i = threadIdx.x; i < cols; i += blockDim.x) row[i] *= s[blockIdx.x];
}
