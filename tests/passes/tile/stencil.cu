// examples/stencil2d/kernel.cu: one Jacobi sweep of a 5-point stencil on an H x W fp32 grid,
// row-major. Interior points: out = c0 * centre + c1 * (north + south + west + east); points on
// the boundary (first/last row or column) are copied from in unchanged. With c0 = c1 = 0.2 it
// averages the five points. Written plainly: one thread per point, 16 x 16 blocks, x along the
// columns.
#include <cuda_runtime.h>

__global__ void stencil2d(int H, int W, float c0, float c1, float *in, float *out) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= H || j >= W) return;
  if (i == 0 || i == H - 1 || j == 0 || j == W - 1) {
    out[i * W + j] = in[i * W + j];
  } else {
    out[i * W + j] = c0 * in[i * W + j] +
                     c1 * (in[(i - 1) * W + j] + in[(i + 1) * W + j] + in[i * W + j - 1] +
                           in[i * W + j + 1]);
  }
}

void launch_stencil2d(int H, int W, float c0, float c1, float *in, float *out,
                      cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((W + 15) / 16, (H + 15) / 16);
  stencil2d<<<grid, block, 0, stream>>>(H, W, c0, c1, in, out);
}
