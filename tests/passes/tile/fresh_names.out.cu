// The kernel and the file already use the names the emitter would choose (BM, acc, tid, k0):
// the emitted ones must differ.
#define BM 7
__global__ void __launch_bounds__(256, 5) mm(const float *A, const float *B, float *C, int n) {
  // krewrite tile: 16 x 16 outputs of (acc, tid) per block, k tiles of 8; staged in shared memory: A, B
  constexpr int BM_1 = 16, BN = 16, BK = 8;
  constexpr int TM = 1, TN = 1;
  constexpr int NT = (BM_1 / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[BK][BM_1 + 4];
  __shared__ __align__(16) float B_tile[BK][BN + 4];
  const int tid_1 = threadIdx.x;
  const int m0 = blockIdx.y * BM_1, n0 = blockIdx.x * BN;
  const int tm0 = (tid_1 / (BN / TN)) * TM, tn0 = (tid_1 % (BN / TN)) * TN;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (n) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  float acc_1[TM][TN];
  #pragma unroll
  for (int i = 0; i < TM; i++)
    #pragma unroll
    for (int j = 0; j < TN; j++) acc_1[i][j] = (float)0;
  for (int k0_1 = 0; k0_1 < n; k0_1 += BK) {
    // krewrite tile: the k tile of the staged operands, loaded cooperatively
    bool inside = true;
    {
      const int acc = m0 + 0;
      const int k = k0_1 + 0;
      inside = inside && (acc < n && k < n);
    }
    {
      const int acc = m0 + BM_1 - 1;
      const int k = k0_1 + BK - 1;
      inside = inside && (acc < n && k < n);
    }
    inside = inside && B_vec;
    {
      const int tid = n0 + 0;
      const int k = k0_1 + 0;
      inside = inside && (tid < n && k < n);
    }
    {
      const int tid = n0 + BN - 1;
      const int k = k0_1 + BK - 1;
      inside = inside && (tid < n && k < n);
    }
    if (inside) {
      for (int e = tid_1; e < BM_1 * BK; e += NT) {
        const int mm_1 = e / BK, kk = e % BK;
        const int acc = m0 + mm_1;
        const int k = k0_1 + kk;
        A_tile[kk][mm_1] = A[acc * n + k];
      }
      for (int e = tid_1; e < BK * (BN / 4); e += NT) {
        const int mm_1 = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        const int tid = n0 + mm_1;
        const int k = k0_1 + kk;
        *reinterpret_cast<float4 *>(&B_tile[kk][mm_1]) = *reinterpret_cast<const float4 *>(&B[k * n + tid]);
      }
    } else {
      for (int e = tid_1; e < BM_1 * BK; e += NT) {
        const int mm_1 = e / BK, kk = e % BK;
        const int acc = m0 + mm_1;
        const int k = k0_1 + kk;
        A_tile[kk][mm_1] = (acc < n && k < n) ? A[acc * n + k] : (float)0;
      }
      for (int e = tid_1; e < BK * (BN / 4); e += NT) {
        const int mm_1 = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        bool B_full = B_vec;
        {
          const int tid = n0 + mm_1;
          const int k = k0_1 + kk;
          B_full = B_full && (tid < n && k < n);
        }
        {
          const int tid = n0 + mm_1 + 3;
          const int k = k0_1 + kk;
          B_full = B_full && (tid < n && k < n);
        }
        if (B_full) {
          const int tid = n0 + mm_1;
          const int k = k0_1 + kk;
          *reinterpret_cast<float4 *>(&B_tile[kk][mm_1]) = *reinterpret_cast<const float4 *>(&B[k * n + tid]);
        } else {
          for (int v = 0; v < 4; v++) {
            const int tid = n0 + mm_1 + v;
            const int k = k0_1 + kk;
            B_tile[kk][mm_1 + v] = (tid < n && k < n) ? B[k * n + tid] : (float)0;
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
          acc_1[i][j] += A_reg[i] * B_reg[j] * BM;
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
      const int tid = n0 + tn0 + j;
      const int acc = m0 + tm0 + i;
      if (acc < n && tid < n) {
        float k0 = 0.0f;
        k0 += acc_1[i][j];
        C[acc * n + tid] = k0;
      }
    }
  }
}
