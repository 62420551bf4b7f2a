#include <cuda_pipeline.h>
// C = A^T * B^T in fp32: A is K x M and B is N x K, both read along their rows; the k loop starts at a
// parameter. split_k before double_buffer: schedule passes compose in any order.
__global__ void __launch_bounds__(256, 4) tt(const float *A, const float *B, float *C, int M, int N, int K, int k_first, float *workspace = nullptr) {
  // krewrite tile: 32 x 64 outputs of (i, j) per block, k tiles of 8; staged in shared memory: A, B
  // krewrite register_tile: 2 x 4 outputs per thread, an outer product in registers
  // krewrite double_buffer: 3 shared-memory stages filled by cp.async
  constexpr int BM = 32, BN = 64, BK = 8;
  constexpr int TM = 2, TN = 4, STAGES = 3;
  constexpr int NT = (BM / TM) * (BN / TN);
  __shared__ __align__(16) float A_tile[STAGES][BK][BM + 4];
  __shared__ __align__(16) float B_tile[STAGES][BK][BN + 4];
  const int tid = threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tm0 = (tid / (BN / TN)) * TM, tn0 = (tid % (BN / TN)) * TN;
  // krewrite tile: 'A' loads 16 bytes at a time when its rows allow it
  const bool A_vec = (M) % 4 == 0 && reinterpret_cast<unsigned long long>(A) % 16 == 0;
  float acc_1[TM][TN];
  #pragma unroll
  for (int i_1 = 0; i_1 < TM; i_1++)
    #pragma unroll
    for (int j_1 = 0; j_1 < TN; j_1++) acc_1[i_1][j_1] = (float)0;
  // krewrite split_k: part blockIdx.z of gridDim.z takes the k tiles [t_begin, t_end)
  const int k_tiles = (K) > (k_first) ? ((K) - (k_first) + BK - 1) / BK : 0;
  const int t_begin = (int)((long long)blockIdx.z * k_tiles / gridDim.z);
  const int t_end = (int)((long long)(blockIdx.z + 1) * k_tiles / gridDim.z);
  const int k_begin = (k_first) + t_begin * BK;
  const int ntiles = t_end - t_begin;
  // krewrite double_buffer: prefetch the first STAGES - 1 k tiles
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) {
      const int k0 = (k_begin) + kt * BK;
      bool inside = true;
      inside = inside && A_vec;
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
        for (int e = tid; e < BK * (BM / 4); e += NT) {
          const int mm = (e % (BM / 4)) * 4, kk = e / (BM / 4);
          const int i = m0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], &A[k * M + i], 16);
        }
        #pragma unroll
        for (int it = 0; it < (BN * BK) / NT; it++) {
          const int mm = tid / BK + it * 32, kk = tid % BK;
          const int j = n0 + mm;
          const int k = k0 + kk;
          __pipeline_memcpy_async(&B_tile[kt % STAGES][kk][mm], &B[j * K + k], sizeof(float));
        }
      } else {
        for (int e = tid; e < BK * (BM / 4); e += NT) {
          const int mm = (e % (BM / 4)) * 4, kk = e / (BM / 4);
          bool A_full = A_vec;
          {
            const int i = m0 + mm;
            const int k = k0 + kk;
            A_full = A_full && (i < M && k < K);
          }
          {
            const int i = m0 + mm + 3;
            const int k = k0 + kk;
            A_full = A_full && (i < M && k < K);
          }
          if (A_full) {
            const int i = m0 + mm;
            const int k = k0 + kk;
            __pipeline_memcpy_async(&A_tile[kt % STAGES][kk][mm], &A[k * M + i], 16);
          } else {
            for (int v = 0; v < 4; v++) {
              const int i = m0 + mm + v;
              const int k = k0 + kk;
              A_tile[kt % STAGES][kk][mm + v] = (i < M && k < K) ? A[k * M + i] : (float)0;
            }
          }
        }
        #pragma unroll
        for (int it = 0; it < (BN * BK) / NT; it++) {
          const int mm = tid / BK + it * 32, kk = tid % BK;
          const int j = n0 + mm;
          const int k = k0 + kk;
          const bool in_1 = j < N && k < K;
          __pipeline_memcpy_async(&B_tile[kt % STAGES][kk][mm], in_1 ? &B[j * K + k] : B, sizeof(float), in_1 ? 0 : sizeof(float));
        }
      }
    }
    __pipeline_commit();
  }
  for (int kt = 0; kt < ntiles; kt++) {
    {
      // krewrite double_buffer: start the loads of tile kt + STAGES - 1
      const int e = kt + STAGES - 1;
      if (e < ntiles) {
        bool inside_1 = true;
        inside_1 = inside_1 && A_vec;
        {
          const int i = m0 + 0;
          const int k = ((k_begin) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (i < M && k < K);
        }
        {
          const int i = m0 + BM - 1;
          const int k = ((k_begin) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (i < M && k < K);
        }
        {
          const int j = n0 + 0;
          const int k = ((k_begin) + (kt + STAGES - 1) * BK) + 0;
          inside_1 = inside_1 && (j < N && k < K);
        }
        {
          const int j = n0 + BN - 1;
          const int k = ((k_begin) + (kt + STAGES - 1) * BK) + BK - 1;
          inside_1 = inside_1 && (j < N && k < K);
        }
        if (inside_1) {
          for (int e2 = tid; e2 < BK * (BM / 4); e2 += NT) {
            const int mm = (e2 % (BM / 4)) * 4, kk = e2 / (BM / 4);
            const int i = m0 + mm;
            const int k = ((k_begin) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], &A[k * M + i], 16);
          }
          #pragma unroll
          for (int it = 0; it < (BN * BK) / NT; it++) {
            const int mm = tid / BK + it * 32, kk = tid % BK;
            const int j = n0 + mm;
            const int k = ((k_begin) + (kt + STAGES - 1) * BK) + kk;
            __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][kk][mm], &B[j * K + k], sizeof(float));
          }
        } else {
          for (int e2 = tid; e2 < BK * (BM / 4); e2 += NT) {
            const int mm = (e2 % (BM / 4)) * 4, kk = e2 / (BM / 4);
            bool A_full = A_vec;
            {
              const int i = m0 + mm;
              const int k = ((k_begin) + (kt + STAGES - 1) * BK) + kk;
              A_full = A_full && (i < M && k < K);
            }
            {
              const int i = m0 + mm + 3;
              const int k = ((k_begin) + (kt + STAGES - 1) * BK) + kk;
              A_full = A_full && (i < M && k < K);
            }
            if (A_full) {
              const int i = m0 + mm;
              const int k = ((k_begin) + (kt + STAGES - 1) * BK) + kk;
              __pipeline_memcpy_async(&A_tile[(kt + STAGES - 1) % STAGES][kk][mm], &A[k * M + i], 16);
            } else {
              for (int v = 0; v < 4; v++) {
                const int i = m0 + mm + v;
                const int k = ((k_begin) + (kt + STAGES - 1) * BK) + kk;
                A_tile[(kt + STAGES - 1) % STAGES][kk][mm + v] = (i < M && k < K) ? A[k * M + i] : (float)0;
              }
            }
          }
          #pragma unroll
          for (int it = 0; it < (BN * BK) / NT; it++) {
            const int mm = tid / BK + it * 32, kk = tid % BK;
            const int j = n0 + mm;
            const int k = ((k_begin) + (kt + STAGES - 1) * BK) + kk;
            const bool in_2 = j < N && k < K;
            __pipeline_memcpy_async(&B_tile[(kt + STAGES - 1) % STAGES][kk][mm], in_2 ? &B[j * K + k] : B, sizeof(float), in_2 ? 0 : sizeof(float));
          }
        }
      }
      __pipeline_commit();
    }
    __pipeline_wait_prior(STAGES - 1);
    __syncthreads();
    #pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      float A_reg[TM];
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++) A_reg[i_1] = A_tile[kt % STAGES][kk][tm0 + i_1];
      float B_reg[TN];
      #pragma unroll
      for (int j_1 = 0; j_1 < TN; j_1++) B_reg[j_1] = B_tile[kt % STAGES][kk][tn0 + j_1];
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++) {
        #pragma unroll
        for (int j_1 = 0; j_1 < TN; j_1++) {
          acc_1[i_1][j_1] += A_reg[i_1] * B_reg[j_1];
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
      for (int j_1 = 0; j_1 < TN; j_1++) workspace[((size_t)blockIdx.z * tiles + tile) * (BM * BN) + (i_1 * TN + j_1) * NT + tid] = acc_1[i_1][j_1];
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
      for (int j_1 = 0; j_1 < TN; j_1++) acc_1[i_1][j_1] = (float)0;
    for (int p = 0; p < (int)gridDim.z; p++) {
      #pragma unroll
      for (int i_1 = 0; i_1 < TM; i_1++)
        #pragma unroll
        for (int j_1 = 0; j_1 < TN; j_1++) acc_1[i_1][j_1] = acc_1[i_1][j_1] + __ldcg(&workspace[((size_t)p * tiles + tile) * (BM * BN) + (i_1 * TN + j_1) * NT + tid]);
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
      if (i < M && j < N) {
        float acc = 0.0f;
        acc += acc_1[i_1][j_1];
        C[i * N + j] = acc;
      }
    }
  }
}
