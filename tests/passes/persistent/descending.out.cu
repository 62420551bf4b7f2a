// C = A * B with a long k: 512 x 512 outputs in 64 x 64 tiles are 64 blocks, so the k tiles are
// split over 4 parts per tile.
__global__ void __launch_bounds__(256, 3) matmul(int M, int N, int K, const float *A, const float *B, float *C) {
  // krewrite tile: 64 x 64 outputs of (row, col) per block, k tiles of 16; staged in shared memory: A, B
  // krewrite register_tile: 4 x 4 outputs per thread, an outer product in registers
  constexpr int BM = 64, BN = 64, BK = 16;
  constexpr int TM = 4, TN = 4;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[BK][BM + 4];
  __shared__ __align__(16) float B_tile[BK][BN + 4];
  const int tid = threadIdx.x;
  // krewrite persistent: the block walks the m tiles blockIdx.y, blockIdx.y + gridDim.y, ..., counted from the last
  const int kr_mtiles = (M + BM - 1) / BM;
  for (int kr_tile = blockIdx.y; kr_tile < kr_mtiles; kr_tile += gridDim.y) {
    const int m0 = (kr_mtiles - 1 - kr_tile) * BM, n0 = blockIdx.x * BN;
    const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
    // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
    const bool B_vec = (N) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; i++)
      #pragma unroll
      for (int j = 0; j < TN; j++) acc[i][j] = (float)0;
    for (int k0 = 0; k0 < K; k0 += BK) {
      // krewrite tile: the k tile of the staged operands, loaded cooperatively
      bool inside = true;
      {
        const int row = m0 + 0;
        const int k = k0 + 0;
        inside = inside && (row < M && k < K);
      }
      {
        const int row = m0 + BM - 1;
        const int k = k0 + BK - 1;
        inside = inside && (row < M && k < K);
      }
      inside = inside && B_vec;
      {
        const int col = n0 + 0;
        const int k = k0 + 0;
        inside = inside && (col < N && k < K);
      }
      {
        const int col = n0 + BN - 1;
        const int k = k0 + BK - 1;
        inside = inside && (col < N && k < K);
      }
      if (inside) {
        #pragma unroll
        for (int it = 0; it < (BM * BK) / NT; it++) {
          const int mm = tid / BK + it * 16, kk = tid % BK;
          const int row = m0 + mm;
          const int k = k0 + kk;
          A_tile[kk][mm] = A[row * K + k];
        }
        #pragma unroll
        for (int it = 0; it < (BK * (BN / 4)) / NT; it++) {
          const int mm = (tid % (BN / 4)) * 4, kk = tid / (BN / 4) + it * 16;
          const int col = n0 + mm;
          const int k = k0 + kk;
          *reinterpret_cast<float4 *>(&B_tile[kk][mm]) = *reinterpret_cast<const float4 *>(&B[k * N + col]);
        }
      } else {
        #pragma unroll
        for (int it = 0; it < (BM * BK) / NT; it++) {
          const int mm = tid / BK + it * 16, kk = tid % BK;
          const int row = m0 + mm;
          const int k = k0 + kk;
          A_tile[kk][mm] = (row < M && k < K) ? A[row * K + k] : (float)0;
        }
        #pragma unroll
        for (int it = 0; it < (BK * (BN / 4)) / NT; it++) {
          const int mm = (tid % (BN / 4)) * 4, kk = tid / (BN / 4) + it * 16;
          bool B_full = B_vec;
          {
            const int col = n0 + mm;
            const int k = k0 + kk;
            B_full = B_full && (col < N && k < K);
          }
          {
            const int col = n0 + mm + 3;
            const int k = k0 + kk;
            B_full = B_full && (col < N && k < K);
          }
          if (B_full) {
            const int col = n0 + mm;
            const int k = k0 + kk;
            *reinterpret_cast<float4 *>(&B_tile[kk][mm]) = *reinterpret_cast<const float4 *>(&B[k * N + col]);
          } else {
            for (int v = 0; v < 4; v++) {
              const int col = n0 + mm + v;
              const int k = k0 + kk;
              B_tile[kk][mm + v] = (col < N && k < K) ? B[k * N + col] : (float)0;
            }
          }
        }
      }
      __syncthreads();
      #pragma unroll
      for (int kk = 0; kk < BK; kk++) {
        float A_reg[TM];
        #pragma unroll
        for (int i = 0; i < TM; i++) A_reg[i] = A_tile[kk][tm0 + i];
        float B_reg[TN];
        #pragma unroll
        for (int j = 0; j < TN; j++) B_reg[j] = B_tile[kk][tn0 + j];
        #pragma unroll
        for (int i = 0; i < TM; i++) {
          #pragma unroll
          for (int j = 0; j < TN; j++) {
            acc[i][j] += A_reg[i] * B_reg[j];
          }
        }
      }
      __syncthreads();
    }
    // krewrite tile: each thread's outputs, under the kernel's own guard
    #pragma unroll
    for (int i = 0; i < TM; i++) {
      #pragma unroll
      for (int j = 0; j < TN; j++) {
        const int col = n0 + tn0 + j;
        const int row = m0 + tm0 + i;
        if (row < M && col < N) {
          float sum = 0.0f;
          sum += acc[i][j];
          C[row * N + col] = sum;
        }
      }
    }
    __syncthreads();
  }
}
