// examples/transpose/kernel.cu: out = in^T in fp32. in is rows x cols, out is cols x rows, both
// row-major. Written plainly: one thread per element, 16 x 16 blocks, x along the columns of in;
// the reads are coalesced and the writes are strided by rows.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) transpose(int rows, int cols, float *in, float *out) {
  // krewrite tile: 32 x 64 elements of (c, r) per block, through shared memory
  constexpr int BM = 32, BN = 64, NT = 256;
  __shared__ float in_tile[BM][BN + 1];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite tile: 'in' loaded in the order it is stored
  for (int e = tid; e < BM * BN; e += NT) {
    const int mm = e % BM, nn = e / BM;
    const int c = m0 + mm;
    const int r = n0 + nn;
    in_tile[mm][nn] = (r < rows && c < cols) ? in[r * cols + c] : (float)0;
  }
  __syncthreads();
  // krewrite tile: the outputs in the order they are stored, under the kernel's own guard
  for (int e = tid; e < BM * BN; e += NT) {
    const int mm = e / BN, nn = e % BN;
    const int c = m0 + mm;
    const int r = n0 + nn;
    if (r < rows && c < cols) {
      out[c * rows + r] = in_tile[mm][nn];
    }
  }
}

void launch_transpose(int rows, int cols, float *in, float *out, cudaStream_t stream) {
  dim3 block(16, 16);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  transpose<<<grid, block, 0, stream>>>(rows, cols, in, out);
}
