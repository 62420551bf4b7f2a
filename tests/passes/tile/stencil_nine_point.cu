// tests/fixtures/stencil/nine_point.cu: a 9-point stencil that reaches two columns either side and
// one row above and below; the interior is the then-branch of a positive condition, the border is
// copied. Sizes are parameters; the input and output have their own names and order.
__global__ void stencil(const float *src, float *dst, int ny, int nx, float w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y < ny && x < nx) {
    if (y >= 1 && y <= ny - 2 && x > 1 && x < nx - 2) {
      dst[y * nx + x] = w * src[y * nx + x] + 0.125f * (src[y * nx + x - 2] + src[y * nx + x - 1] +
                                                        src[y * nx + x + 1] + src[y * nx + x + 2]) -
                        0.25f * (src[(y - 1) * nx + x] + src[(y + 1) * nx + x]);
    } else {
      dst[y * nx + x] = src[y * nx + x];
    }
  }
}
