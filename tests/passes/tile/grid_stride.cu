// tests/fixtures/gridstride/transpose.cu: out = in^T with a 2-D grid-stride loop and a fixed grid
// (4 x 4 blocks of 16 x 16 threads), so each thread moves several elements of larger matrices.
__global__ void transpose(int rows, int cols, const float *in, float *out) {
  for (int r = blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += blockDim.y * gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x)
      out[c * rows + r] = in[r * cols + c];
}
