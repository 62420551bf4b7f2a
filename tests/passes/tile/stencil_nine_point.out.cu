// tests/fixtures/stencil/nine_point.cu: a 9-point stencil that reaches two columns either side and
// one row above and below; the interior is the then-branch of a positive condition, the border is
// copied. Sizes are parameters; the input and output have their own names and order.
__global__ void __launch_bounds__(256) stencil(const float *src, float *dst, int ny, int nx, float w) {
  // krewrite tile: 16 x 36 outputs of (y, x) per block; the staged reads from a shared tile with its halo
  constexpr int BM = 16, BN = 36, NT = 256;
  constexpr int src_ROWS = BM + 2, src_COLS = BN + 8;
  __shared__ __align__(16) float src_tile[src_ROWS][src_COLS];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  // krewrite tile: 'src' and its halo (rows 1 above, 1 below; columns 2 left, 2 right), loaded once
  const bool src_vec = nx % 4 == 0 && reinterpret_cast<unsigned long long>(src) % 16 == 0;
  constexpr int src_GROUPS = src_ROWS * (src_COLS / 4), src_LOADS = (src_GROUPS + NT - 1) / NT;
  float4 src_regs[src_LOADS];
  bool src_full[src_LOADS];
  #pragma unroll
  for (int p = 0; p < src_LOADS; p++) {
    const int e = p * NT + tid;
    const int mm = e / (src_COLS / 4), nn = (e % (src_COLS / 4)) * 4;
    const int src_row = m0 + mm - 1, src_col = n0 + nn - 4;
    src_full[p] = src_vec && e < src_GROUPS && src_row >= 0 && src_row < ny && src_col >= 0 && src_col + 3 < nx;
    if (src_full[p]) src_regs[p] = *reinterpret_cast<const float4 *>(&src[src_row * nx + src_col]);
  }
  #pragma unroll
  for (int p = 0; p < src_LOADS; p++) {
    const int e = p * NT + tid;
    if (e >= src_GROUPS) break;
    const int mm = e / (src_COLS / 4), nn = (e % (src_COLS / 4)) * 4;
    const int src_row = m0 + mm - 1, src_col = n0 + nn - 4;
    if (src_full[p]) {
      *reinterpret_cast<float4 *>(&src_tile[mm][nn]) = src_regs[p];
    } else {
      for (int v = 0; v < 4; v++)
        src_tile[mm][nn + v] = (src_row >= 0 && src_row < ny && src_col + v >= 0 && src_col + v < nx) ? src[src_row * nx + src_col + v] : (float)0;
    }
  }
  __syncthreads();
  // krewrite tile: each thread's outputs, a warp along a row, under the kernel's own guard
  for (int e = tid; e < BM * BN; e += NT) {
    const int mm = e / BN, nn = e % BN;
    const int x = n0 + nn;
    const int y = m0 + mm;
    if (y < ny && x < nx) {
      if (y >= 1 && y <= ny - 2 && x > 1 && x < nx - 2) {
        dst[y * nx + x] = w * src_tile[mm + 1][nn + 4] + 0.125f * (src_tile[mm + 1][nn + 2] + src_tile[mm + 1][nn + 3] +
                                                          src_tile[mm + 1][nn + 5] + src_tile[mm + 1][nn + 6]) -
                          0.25f * (src_tile[mm][nn + 4] + src_tile[mm + 2][nn + 4]);
      } else {
        dst[y * nx + x] = src_tile[mm + 1][nn + 4];
      }
    }
  }
}
