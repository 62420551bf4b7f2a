// The largest product of a row of A and a column of B: a max reduction, where zero-filled tile
// elements would change the result, so the emitted k loop is guarded.
__global__ void __launch_bounds__(256, 5) maxprod(const float *A, const float *B, float *C, int M, int N, int K) {
  // krewrite tile: 16 x 16 outputs of (i, j) per block, k tiles of 8; staged in shared memory: A, B
  constexpr int BM = 16, BN = 16, BK = 8;
  constexpr int TM = 1, TN = 1;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[BK][BM + 4];
  __shared__ __align__(16) float B_tile[BK][BN + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (N) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  float acc[TM][TN];
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++)
    #pragma unroll
    for (int j_1 = 0; j_1 < TN; j_1++) acc[i_1][j_1] = -INFINITY;
  for (int k0 = 0; k0 < K; k0 += BK) {
    // krewrite tile: the k tile of the staged operands, loaded cooperatively
    bool inside = true;
    {
      const int i = m0 + 0;
      const int k = k0 + 0;
      inside = inside && (i < M && k < K);
    }
    {
      const int i = m0 + BM - 1;
      const int k = k0 + BK - 1;
      inside = inside && (i < M && k < K);
    }
    inside = inside && B_vec;
    {
      const int j = n0 + 0;
      const int k = k0 + 0;
      inside = inside && (j < N && k < K);
    }
    {
      const int j = n0 + BN - 1;
      const int k = k0 + BK - 1;
      inside = inside && (j < N && k < K);
    }
    if (inside) {
      for (int e = tid; e < BM * BK; e += NT) {
        const int mm = e / BK, kk = e % BK;
        const int i = m0 + mm;
        const int k = k0 + kk;
        A_tile[kk][mm] = A[i * K + k];
      }
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int mm = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        const int j = n0 + mm;
        const int k = k0 + kk;
        *reinterpret_cast<float4 *>(&B_tile[kk][mm]) = *reinterpret_cast<const float4 *>(&B[k * N + j]);
      }
    } else {
      for (int e = tid; e < BM * BK; e += NT) {
        const int mm = e / BK, kk = e % BK;
        const int i = m0 + mm;
        const int k = k0 + kk;
        A_tile[kk][mm] = (i < M && k < K) ? A[i * K + k] : (float)0;
      }
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int mm = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        bool B_full = B_vec;
        {
          const int j = n0 + mm;
          const int k = k0 + kk;
          B_full = B_full && (j < N && k < K);
        }
        {
          const int j = n0 + mm + 3;
          const int k = k0 + kk;
          B_full = B_full && (j < N && k < K);
        }
        if (B_full) {
          const int j = n0 + mm;
          const int k = k0 + kk;
          *reinterpret_cast<float4 *>(&B_tile[kk][mm]) = *reinterpret_cast<const float4 *>(&B[k * N + j]);
        } else {
          for (int v = 0; v < 4; v++) {
            const int j = n0 + mm + v;
            const int k = k0 + kk;
            B_tile[kk][mm + v] = (j < N && k < K) ? B[k * N + j] : (float)0;
          }
        }
      }
    }
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      if (k0 + kk < K) {
        float A_reg[TM];
        #pragma unroll
        for (int i_1 = 0; i_1 < TM; i_1++) A_reg[i_1] = A_tile[kk][tm0 + i_1];
        float B_reg[TN];
        #pragma unroll
        for (int j_1 = 0; j_1 < TN; j_1++) B_reg[j_1] = B_tile[kk][tn0 + j_1];
        #pragma unroll
        for (int i_1 = 0; i_1 < TM; i_1++) {
          #pragma unroll
          for (int j_1 = 0; j_1 < TN; j_1++) {
            acc[i_1][j_1] = fmaxf(acc[i_1][j_1], A_reg[i_1] * B_reg[j_1]);
          }
        }
      }
    }
    __syncthreads();
  }
  // krewrite tile: each thread's outputs, under the kernel's own guard
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++) {
    #pragma unroll
    for (int j_1 = 0; j_1 < TN; j_1++) {
      const int j = n0 + tn0 + j_1;
      const int i = m0 + tm0 + i_1;
      if (i < M && j < N) {
        float best = -1e30f;
        best = fmaxf(best, acc[i_1][j_1]);
        C[i * N + j] = best;
      }
    }
  }
}
