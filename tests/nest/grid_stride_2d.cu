// expect 0: parallel  c < cols  (grid-stride loop, thread map x, block blockDim.x, line 6)
__global__ void k(int rows, int cols, const float *in, float *out) {
  int sy = blockDim.y * gridDim.y;
  for (int r = threadIdx.y + blockIdx.y * blockDim.y; r < rows; r += sy) {
    int sx = gridDim.x * blockDim.x;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c = c + sx) {
      out[c * rows + r] = in[r * cols + c];
    }
  }
}
