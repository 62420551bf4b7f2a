__global__ void __launch_bounds__(256, 5) mm(const float *A, const float *B, float *C, int n) {
  // krewrite tile: 16 x 16 outputs of (r, c) per block, k tiles of 16; staged in shared memory: A, B
  constexpr int BM = 16, BN = 16, BK = 16;
  constexpr int TM = 1, TN = 1;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[BK][BM + 4];
  __shared__ __align__(16) float B_tile[BK][BN + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (n) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  float acc[TM][TN];
  #pragma unroll
  for (int i = 0; i < TM; i++)
    #pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = (float)0;
  for (int k0 = 0; k0 < n; k0 += BK) {
    // krewrite tile: the k tile of the staged operands, loaded cooperatively
    bool inside = true;
    {
      const int r = m0 + 0;
      const int k = k0 + 0;
      inside = inside && (r < n && k < n);
    }
    {
      const int r = m0 + BM - 1;
      const int k = k0 + BK - 1;
      inside = inside && (r < n && k < n);
    }
    inside = inside && B_vec;
    {
      const int c = n0 + 0;
      const int k = k0 + 0;
      inside = inside && (c < n && k < n);
    }
    {
      const int c = n0 + BN - 1;
      const int k = k0 + BK - 1;
      inside = inside && (c < n && k < n);
    }
    if (inside) {
      #pragma unroll
      for (int it = 0; it < (BM * BK) / NT; it++) {
        const int mm_1 = tid / BK + it * 16, kk = tid % BK;
        const int r = m0 + mm_1;
        const int k = k0 + kk;
        A_tile[kk][mm_1] = A[r * n + k];
      }
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int mm_1 = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        const int c = n0 + mm_1;
        const int k = k0 + kk;
        *reinterpret_cast<float4 *>(&B_tile[kk][mm_1]) = *reinterpret_cast<const float4 *>(&B[k * n + c]);
      }
    } else {
      #pragma unroll
      for (int it = 0; it < (BM * BK) / NT; it++) {
        const int mm_1 = tid / BK + it * 16, kk = tid % BK;
        const int r = m0 + mm_1;
        const int k = k0 + kk;
        A_tile[kk][mm_1] = (r < n && k < n) ? A[r * n + k] : (float)0;
      }
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int mm_1 = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        bool B_full = B_vec;
        {
          const int c = n0 + mm_1;
          const int k = k0 + kk;
          B_full = B_full && (c < n && k < n);
        }
        {
          const int c = n0 + mm_1 + 3;
          const int k = k0 + kk;
          B_full = B_full && (c < n && k < n);
        }
        if (B_full) {
          const int c = n0 + mm_1;
          const int k = k0 + kk;
          *reinterpret_cast<float4 *>(&B_tile[kk][mm_1]) = *reinterpret_cast<const float4 *>(&B[k * n + c]);
        } else {
          for (int v = 0; v < 4; v++) {
            const int c = n0 + mm_1 + v;
            const int k = k0 + kk;
            B_tile[kk][mm_1 + v] = (c < n && k < n) ? B[k * n + c] : (float)0;
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
      const int c = n0 + tn0 + j;
      const int r = m0 + tm0 + i;
      if (r < n && c < n) {
        float s = 0.0f;
        s += acc[i][j];
        C[r * n + c] = s;
      }
    }
  }
}
