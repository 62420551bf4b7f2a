// examples/transpose/kernel.cu: out = in^T in fp32. in is rows x cols, out is cols x rows, both
// row-major. Written plainly: one thread per element, 16 x 16 blocks, x along the columns of in;
// the reads are coalesced and the writes are strided by rows.
#include <cuda_runtime.h>

__global__ void transpose(int rows, int cols, float *in, float *out) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    out[c * rows + r] = in[r * cols + c];
  }
}

void launch_transpose(int rows, int cols, float *in, float *out, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  transpose<<<grid, block, 0, stream>>>(rows, cols, in, out);
}
