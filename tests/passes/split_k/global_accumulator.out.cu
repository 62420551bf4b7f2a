// C = alpha * A * B + beta * C, accumulated into C in global memory: the prologue (C *= beta) and
// the combine run once per output, in the block that arrives last.
#define NI 77
#define NJ 91
#define NK 5000

__global__ void __launch_bounds__(256, 3) gemm(float alpha, float beta, const float *A, const float *B, float *C, float *workspace = nullptr) {
  // krewrite tile: 64 x 64 outputs of (i, j) per block, k tiles of 32; staged in shared memory: A, B
  // krewrite register_tile: 4 x 4 outputs per thread, an outer product in registers
  constexpr int BM = 64, BN = 64, BK = 32;
  constexpr int TM = 4, TN = 4;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[BK][BM + 4];
  __shared__ __align__(16) float B_tile[BK][BN + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  // krewrite tile: 'B' loads 16 bytes at a time when its rows allow it
  const bool B_vec = (NJ) % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  float acc[TM][TN];
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++)
    #pragma unroll
    for (int j_1 = 0; j_1 < TN; j_1++) acc[i_1][j_1] = (float)0;
  // krewrite split_k: part blockIdx.z of gridDim.z takes the k tiles [t_begin, t_end)
  const int k_tiles = (NK) > (0) ? ((NK) - (0) + BK - 1) / BK : 0;
  const int t_begin = (int)((long long)blockIdx.z * k_tiles / gridDim.z);
  const int t_end = (int)((long long)(blockIdx.z + 1) * k_tiles / gridDim.z);
  const int k_begin = (0) + t_begin * BK;
  const int k_end = t_begin < t_end ? ((0) + t_end * BK < (NK) ? (0) + t_end * BK : (NK)) : k_begin;
  for (int k0 = k_begin; k0 < k_end; k0 += BK) {
    // krewrite tile: the k tile of the staged operands, loaded cooperatively
    bool inside = true;
    {
      const int i = m0 + 0;
      const int k = k0 + 0;
      inside = inside && (i < NI && k < NK);
    }
    {
      const int i = m0 + BM - 1;
      const int k = k0 + BK - 1;
      inside = inside && (i < NI && k < NK);
    }
    inside = inside && B_vec;
    {
      const int j = n0 + 0;
      const int k = k0 + 0;
      inside = inside && (j < NJ && k < NK);
    }
    {
      const int j = n0 + BN - 1;
      const int k = k0 + BK - 1;
      inside = inside && (j < NJ && k < NK);
    }
    if (inside) {
      #pragma unroll
      for (int it = 0; it < (BM * BK) / NT; it++) {
        const int mm = tid / BK + it * 8, kk = tid % BK;
        const int i = m0 + mm;
        const int k = k0 + kk;
        A_tile[kk][mm] = A[i * NK + k];
      }
      #pragma unroll
      for (int it = 0; it < (BK * (BN / 4)) / NT; it++) {
        const int mm = (tid % (BN / 4)) * 4, kk = tid / (BN / 4) + it * 16;
        const int j = n0 + mm;
        const int k = k0 + kk;
        *reinterpret_cast<float4 *>(&B_tile[kk][mm]) = *reinterpret_cast<const float4 *>(&B[k * NJ + j]);
      }
    } else {
      #pragma unroll
      for (int it = 0; it < (BM * BK) / NT; it++) {
        const int mm = tid / BK + it * 8, kk = tid % BK;
        const int i = m0 + mm;
        const int k = k0 + kk;
        A_tile[kk][mm] = (i < NI && k < NK) ? A[i * NK + k] : (float)0;
      }
      #pragma unroll
      for (int it = 0; it < (BK * (BN / 4)) / NT; it++) {
        const int mm = (tid % (BN / 4)) * 4, kk = tid / (BN / 4) + it * 16;
        bool B_full = B_vec;
        {
          const int j = n0 + mm;
          const int k = k0 + kk;
          B_full = B_full && (j < NJ && k < NK);
        }
        {
          const int j = n0 + mm + 3;
          const int k = k0 + kk;
          B_full = B_full && (j < NJ && k < NK);
        }
        if (B_full) {
          const int j = n0 + mm;
          const int k = k0 + kk;
          *reinterpret_cast<float4 *>(&B_tile[kk][mm]) = *reinterpret_cast<const float4 *>(&B[k * NJ + j]);
        } else {
          for (int v = 0; v < 4; v++) {
            const int j = n0 + mm + v;
            const int k = k0 + kk;
            B_tile[kk][mm + v] = (j < NJ && k < NK) ? B[k * NJ + j] : (float)0;
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
          acc[i_1][j_1] += alpha * A_reg[i_1] * B_reg[j_1];
        }
      }
    }
    __syncthreads();
  }
  // krewrite split_k: the parts meet in the workspace; the tile's last block to arrive adds them in order
  if (gridDim.z > 1) {
    __shared__ bool last_part;
    const int tile = blockIdx.y * gridDim.x + blockIdx.x, tiles = gridDim.x * gridDim.y;
    unsigned int *arrived = reinterpret_cast<unsigned int *>(workspace + (size_t)gridDim.z * tiles * (BM * BN));
    #pragma unroll
    for (int i_1 = 0; i_1 < TM; i_1++)
      #pragma unroll
      for (int j_1 = 0; j_1 < TN; j_1++) workspace[((size_t)blockIdx.z * tiles + tile) * (BM * BN) + (i_1 * TN + j_1) * NT + tid] = acc[i_1][j_1];
    __threadfence();
    __syncthreads();
    if (tid == 0) last_part = atomicAdd(&arrived[tile], 1u) == gridDim.z - 1;
    __syncthreads();
    if (!last_part) return;
    __threadfence();
    // krewrite split_k: the total in the accumulators, part by part (each part's loads at once)
    #pragma unroll
    for (int i_1 = 0; i_1 < TM; i_1++)
      #pragma unroll
      for (int j_1 = 0; j_1 < TN; j_1++) acc[i_1][j_1] = (float)0;
    for (int p = 0; p < (int)gridDim.z; p++) {
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++)
        #pragma unroll
        for (int j_1 = 0; j_1 < TN; j_1++) acc[i_1][j_1] = acc[i_1][j_1] + __ldcg(&workspace[((size_t)p * tiles + tile) * (BM * BN) + (i_1 * TN + j_1) * NT + tid]);
    }
    // krewrite split_k: the counter back at zero for the next launch
    if (tid == 0) arrived[tile] = 0;
  }
  // krewrite tile: each thread's outputs, under the kernel's own guard
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++) {
    #pragma unroll
    for (int j_1 = 0; j_1 < TN; j_1++) {
      const int j = n0 + tn0 + j_1;
      const int i = m0 + tm0 + i_1;
      if (i < NI && j < NJ) {
        C[i * NJ + j] *= beta;
        C[i * NJ + j] += acc[i_1][j_1];
      }
    }
  }
}
