// A matrix product, then a ReLU over its output in place: the ReLU becomes the product's epilogue.
__global__ void __launch_bounds__(1024, 1) matmul(int M, int N, int K, const float *A, const float *B, float *C) {
  // krewrite tile: 32 x 32 outputs of (row, col) per block, k tiles of 8; staged in shared memory: A, B
  constexpr int BM = 32, BN = 32, BK = 8;
  constexpr int TM = 1, TN = 1;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[BK][BM + 4];
  __shared__ __align__(16) float B_tile[BK][BN + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (N) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  float acc_1[TM][TN];
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++)
    #pragma unroll
    for (int j = 0; j < TN; j++) acc_1[i_1][j] = (float)0;
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
      for (int e = tid; e < BM * BK; e += NT) {
        const int mm = e / BK, kk = e % BK;
        const int row = m0 + mm;
        const int k = k0 + kk;
        A_tile[kk][mm] = A[row * K + k];
      }
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int mm = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        const int col = n0 + mm;
        const int k = k0 + kk;
        *reinterpret_cast<float4 *>(&B_tile[kk][mm]) = *reinterpret_cast<const float4 *>(&B[k * N + col]);
      }
    } else {
      for (int e = tid; e < BM * BK; e += NT) {
        const int mm = e / BK, kk = e % BK;
        const int row = m0 + mm;
        const int k = k0 + kk;
        A_tile[kk][mm] = (row < M && k < K) ? A[row * K + k] : (float)0;
      }
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int mm = (e % (BN / 4)) * 4, kk = e / (BN / 4);
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
      for (int i_1 = 0; i_1 < TM; i_1++) A_reg[i_1] = A_tile[kk][tm0 + i_1];
      float B_reg[TN];
      #pragma unroll
      for (int j = 0; j < TN; j++) B_reg[j] = B_tile[kk][tn0 + j];
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++) {
        #pragma unroll
        for (int j = 0; j < TN; j++) {
          acc_1[i_1][j] += A_reg[i_1] * B_reg[j];
        }
      }
    }
    __syncthreads();
  }
  // krewrite tile: each thread's outputs, under the kernel's own guard
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++) {
    #pragma unroll
    for (int j = 0; j < TN; j++) {
      const int row = m0 + tm0 + i_1;
      const int col = n0 + tn0 + j;
      if (row < M && col < N) {
        float acc = 0.0f;
        acc += acc_1[i_1][j];
        C[row * N + col] = acc;
        C[(row * N + col)] = C[(row * N + col)] > 0.0f ? C[(row * N + col)] : 0.0f;
      }
    }
  }
}

__global__ void relu(float *C, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < total) C[i] = C[i] > 0.0f ? C[i] : 0.0f;
}
