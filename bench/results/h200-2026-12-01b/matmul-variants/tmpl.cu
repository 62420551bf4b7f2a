// Hand-written variants of the emitted matmul schedule, to learn what pays before the emitter
// does it. Switches: AMAJ (A tile m-major, 16-byte cp.async along k), AVEC (A read as float4 over
// 4 k), WARP (4 x 8 lanes per warp), FAST (unguarded loads for interior tiles), EPI4 (float4 C).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#ifndef BM_
#define BM_ 128
#endif
#ifndef BN_
#define BN_ 128
#endif
#ifndef BK_
#define BK_ 16
#endif
#ifndef STAGES_
#define STAGES_ 2
#endif
#ifndef TM_
#define TM_ 8
#endif
#ifndef TN_
#define TN_ 8
#endif

__global__ void LBSLOT matmul(
    int M, int N, int K, float *A, float *B, float *C) {
  constexpr int BM = BM_, BN = BN_, BK = BK_, TM = TM_, TN = TN_, STAGES = STAGES_;
  constexpr int NT = (BM / TM) * (BN / TN);
#if AMAJ
  __shared__ __align__(16) float As[STAGES][BM][BK + 4];
#else
  __shared__ __align__(16) float As[STAGES][BK][BM + 4];
#endif
  __shared__ __align__(16) float Bs[STAGES][BK][BN + 4];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
#if WARP
  const int lane = tid & 31, warp = tid >> 5;
  constexpr int WN = (BN / TN) / 8;
  const int tm0 = ((warp / WN) * 4 + lane / 8) * 4, tn0 = ((warp % WN) * 8 + lane % 8) * 4;
#else
  const int tm0 = (tid / (BN / TN)) * 4, tn0 = (tid % (BN / TN)) * 4;
#endif
  const bool avec = K % 4 == 0 && reinterpret_cast<unsigned long long>(A) % 16 == 0;
  const bool bvec = N % 4 == 0 && reinterpret_cast<unsigned long long>(B) % 16 == 0;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;
  auto load = [&](int s, int k0) {
#if FAST
    if (avec && bvec && m0 + BM <= M && n0 + BN <= N && k0 + BK <= K) {
#if AMAJ
#pragma unroll
      for (int e = tid; e < BM * (BK / 4); e += NT) {
        const int mm = e / (BK / 4), kq = (e % (BK / 4)) * 4;
        __pipeline_memcpy_async(&As[s][mm][kq], &A[(m0 + mm) * K + k0 + kq], 16);
      }
#else
#pragma unroll
      for (int e = tid; e < BM * BK; e += NT) {
        const int mm = e / BK, kk = e % BK;
        __pipeline_memcpy_async(&As[s][kk][mm], &A[(m0 + mm) * K + k0 + kk], 4);
      }
#endif
#pragma unroll
      for (int e = tid; e < BK * (BN / 4); e += NT) {
        const int nq = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        __pipeline_memcpy_async(&Bs[s][kk][nq], &B[(k0 + kk) * N + n0 + nq], 16);
      }
      return;
    }
#endif
#if AMAJ
    for (int e = tid; e < BM * (BK / 4); e += NT) {
      const int mm = e / (BK / 4), kq = (e % (BK / 4)) * 4;
      const int row = m0 + mm, k = k0 + kq;
      if (avec && row < M && k + 3 < K) __pipeline_memcpy_async(&As[s][mm][kq], &A[row * K + k], 16);
      else
        for (int v = 0; v < 4; v++) As[s][mm][kq + v] = (row < M && k + v < K) ? A[row * K + k + v] : 0.0f;
    }
#else
    for (int e = tid; e < BM * BK; e += NT) {
      const int mm = e / BK, kk = e % BK;
      const int row = m0 + mm, k = k0 + kk;
      if (row < M && k < K) __pipeline_memcpy_async(&As[s][kk][mm], &A[row * K + k], 4);
      else As[s][kk][mm] = 0.0f;
    }
#endif
    for (int e = tid; e < BK * (BN / 4); e += NT) {
      const int nq = (e % (BN / 4)) * 4, kk = e / (BN / 4);
      const int col = n0 + nq, k = k0 + kk;
      if (bvec && col + 3 < N && k < K) __pipeline_memcpy_async(&Bs[s][kk][nq], &B[k * N + col], 16);
      else
        for (int v = 0; v < 4; v++) Bs[s][kk][nq + v] = (col + v < N && k < K) ? B[k * N + col + v] : 0.0f;
    }
  };
  const int ntiles = (K + BK - 1) / BK;
  for (int kt = 0; kt < STAGES - 1; kt++) {
    if (kt < ntiles) load(kt, kt * BK);
    __pipeline_commit();
  }
  for (int kt = 0; kt < ntiles; kt++) {
    if (kt + STAGES - 1 < ntiles) load((kt + STAGES - 1) % STAGES, (kt + STAGES - 1) * BK);
    __pipeline_commit();
    __pipeline_wait_prior(STAGES - 1);
    __syncthreads();
    const int s = kt % STAGES;
#if AMAJ && AVEC
#pragma unroll
    for (int k4 = 0; k4 < BK; k4 += 4) {
      float4 a4[TM];
#pragma unroll
      for (int i = 0; i < TM; i++) a4[i] = *reinterpret_cast<const float4 *>(&As[s][tm0 + (i / 4) * (BM / (TM / 4)) + i % 4][k4]);
#pragma unroll
      for (int q = 0; q < 4; q++) {
        float a[TM], b[TN];
#pragma unroll
        for (int i = 0; i < TM; i++) a[i] = q == 0 ? a4[i].x : q == 1 ? a4[i].y : q == 2 ? a4[i].z : a4[i].w;
#pragma unroll
        for (int j = 0; j < TN; j++) b[j] = Bs[s][k4 + q][tn0 + (j / 4) * (BN / (TN / 4)) + j % 4];
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
          for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
      }
    }
#else
#pragma unroll
    for (int kk = 0; kk < BK; kk++) {
      float a[TM], b[TN];
#if AMAJ
#pragma unroll
      for (int i = 0; i < TM; i++) a[i] = As[s][tm0 + (i / 4) * (BM / (TM / 4)) + i % 4][kk];
#else
#pragma unroll
      for (int i = 0; i < TM; i++) a[i] = As[s][kk][tm0 + (i / 4) * (BM / (TM / 4)) + i % 4];
#endif
#pragma unroll
      for (int j = 0; j < TN; j++) b[j] = Bs[s][kk][tn0 + (j / 4) * (BN / (TN / 4)) + j % 4];
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] += a[i] * b[j];
    }
#endif
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; i++) {
    const int row = m0 + tm0 + (i / 4) * (BM / (TM / 4)) + i % 4;
#pragma unroll
    for (int jc = 0; jc < TN; jc += 4) {
      const int col = n0 + tn0 + (jc / 4) * (BN / (TN / 4));
#if EPI4
      if (row < M && col + 3 < N && N % 4 == 0 && reinterpret_cast<unsigned long long>(C) % 16 == 0) {
        *reinterpret_cast<float4 *>(&C[row * N + col]) = make_float4(acc[i][jc], acc[i][jc + 1], acc[i][jc + 2], acc[i][jc + 3]);
        continue;
      }
#endif
#pragma unroll
      for (int v = 0; v < 4; v++)
        if (row < M && col + v < N) C[row * N + col + v] = acc[i][jc + v];
    }
  }
}
