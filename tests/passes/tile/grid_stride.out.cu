// tests/fixtures/gridstride/transpose.cu: out = in^T with a 2-D grid-stride loop and a fixed grid
// (4 x 4 blocks of 16 x 16 threads), so each thread moves several elements of larger matrices.
__global__ void __launch_bounds__(256) transpose(int rows, int cols, const float *in, float *out) {
  // krewrite tile: 16 x 64 elements of (c, r) per block, through shared memory
  constexpr int BM = 16, BN = 64, NT = 256;
  __shared__ float in_tile[BM][BN + 1];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite tile: 'in' loaded in the order it is stored
  for (int e = tid; e < BM * BN; e += NT) {
    const int mm = e % BM, nn = e / BM;
    const int r = n0 + nn;
    const int c = m0 + mm;
    in_tile[mm][nn] = (r < rows && c < cols) ? in[r * cols + c] : (float)0;
  }
  __syncthreads();
  // krewrite tile: the outputs in the order they are stored, under the kernel's own guard
  for (int e = tid; e < BM * BN; e += NT) {
    const int mm = e / BN, nn = e % BN;
    const int r = n0 + nn;
    const int c = m0 + mm;
    if (r < rows && c < cols) {
      out[c * rows + r] = in_tile[mm][nn];
    }
  }
}
