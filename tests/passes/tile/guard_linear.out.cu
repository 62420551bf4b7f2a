// A guard that is not written `axis op bound` (i + 2 < M + 2): it is still a linear comparison in
// one axis, so it holds on an interval of rows, and a tile within the bounds at its first and last
// rows loads without per-element guards.
__global__ void __launch_bounds__(256, 3) mm(const float *A, const float *B, float *C, int M, int N, int K) {
  // krewrite tile: 64 x 64 outputs of (i, j) per block, k tiles of 8; staged in shared memory: A, B
  // krewrite register_tile: 4 x 4 outputs per thread, an outer product in registers
  constexpr int BM = 64, BN = 64, BK = 8;
  constexpr int TM = 4, TN = 4;
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
    for (int j_1 = 0; j_1 < TN; j_1++) acc[i_1][j_1] = (float)0;
  for (int k0 = 0; k0 < K; k0 += BK) {
    // krewrite tile: the k tile of the staged operands, loaded cooperatively
    bool inside = true;
    {
      const int i = m0 + 0;
      const int k = k0 + 0;
      inside = inside && (i < M && i + 2 < M + 2 && k < K);
    }
    {
      const int i = m0 + BM - 1;
      const int k = k0 + BK - 1;
      inside = inside && (i < M && i + 2 < M + 2 && k < K);
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
      #pragma unroll
      for (int it_1 = 0; it_1 < (BM * BK) / NT; it_1++) {
        const int mm_1 = tid / BK + it_1 * 32, kk = tid % BK;
        const int i = m0 + mm_1;
        const int k = k0 + kk;
        A_tile[kk][mm_1] = A[i * K + k];
      }
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int mm_1 = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        const int j = n0 + mm_1;
        const int k = k0 + kk;
        *reinterpret_cast<float4 *>(&B_tile[kk][mm_1]) = *reinterpret_cast<const float4 *>(&B[k * N + j]);
      }
    } else {
      #pragma unroll
      for (int it_1 = 0; it_1 < (BM * BK) / NT; it_1++) {
        const int mm_1 = tid / BK + it_1 * 32, kk = tid % BK;
        const int i = m0 + mm_1;
        const int k = k0 + kk;
        A_tile[kk][mm_1] = (i < M && i + 2 < M + 2 && k < K) ? A[i * K + k] : (float)0;
      }
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int mm_1 = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        bool B_full = B_vec;
        {
          const int j = n0 + mm_1;
          const int k = k0 + kk;
          B_full = B_full && (j < N && k < K);
        }
        {
          const int j = n0 + mm_1 + 3;
          const int k = k0 + kk;
          B_full = B_full && (j < N && k < K);
        }
        if (B_full) {
          const int j = n0 + mm_1;
          const int k = k0 + kk;
          *reinterpret_cast<float4 *>(&B_tile[kk][mm_1]) = *reinterpret_cast<const float4 *>(&B[k * N + j]);
        } else {
          for (int v = 0; v < 4; v++) {
            const int j = n0 + mm_1 + v;
            const int k = k0 + kk;
            B_tile[kk][mm_1 + v] = (j < N && k < K) ? B[k * N + j] : (float)0;
          }
        }
      }
    }
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < BK; kk++) {
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
          acc[i_1][j_1] += A_reg[i_1] * B_reg[j_1];
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
      if (i < M && i + 2 < M + 2 && j < N) {
        float s = 0.0f;
        s += acc[i_1][j_1];
        C[i * N + j] = s;
      }
    }
  }
}
