// bench/proto/wgmma/wgmma_pipe.cu: the wgmma tf32 matmul of wgmma_tf32.cu (swizzled A tile, B from
// registers, 2 warpgroups, 256 x 128 block tile) with one product group kept in flight across k tiles
// (wait_group 1): the register operand alternates between two arrays, the loop unrolled by two, and
// the array of the group in flight is held live (an empty asm reading it) until the wait that
// retires it; and a grouped raster of the blocks (GROUP rows of blocks walked column by column).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cmath>
#include <algorithm>
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include WGH

static __device__ __forceinline__ unsigned tf32r(float x) {
  unsigned r; asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x)); return r;
}
static __device__ __forceinline__ void hold(const unsigned (&a)[4][4]) {
  #pragma unroll
  for (int i = 0; i < 4; i++) asm volatile("" :: "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]) : "memory");
}

template <int STAGES, int WAIT1, int GROUP>
__global__ void __launch_bounds__(256, 1) mm(int M, int N, int K, const float *A, const float *B, float *C) {
  constexpr int BMM = 256, BNN = 128, BK = 32, NT = 256;
  extern __shared__ __align__(1024) unsigned char smem[];
  float *As = reinterpret_cast<float *>(smem);
  float (*Bs)[BK][BNN + 8] = reinterpret_cast<float (*)[BK][BNN + 8]>(smem + STAGES * BMM * BK * 4);
  int bx = blockIdx.x, by = blockIdx.y;
  if (GROUP > 1) {   // grouped raster
    const int pid = blockIdx.y * gridDim.x + blockIdx.x, npm = gridDim.y, npn = gridDim.x;
    const int gid = pid / (GROUP * npn), first = gid * GROUP, gs = min(npm - first, GROUP);
    by = first + (pid % (GROUP * npn)) % gs;
    bx = (pid % (GROUP * npn)) / gs;
  }
  const int tid = threadIdx.x, m0 = by * BMM, n0 = bx * BNN;
  const int w = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int nb = w * 16;
  float d[BMM / 2];
  #pragma unroll
  for (int i = 0; i < BMM / 2; i++) d[i] = 0.f;
  const int ntiles = K / BK;
  auto load = [&](int kt) {
    const int s = kt % STAGES, k0 = kt * BK;
    #pragma unroll
    for (int it = 0; it < BMM * 8 / NT; it++) {
      const int e = tid + it * NT, r = e / 8, c = e % 8;
      __pipeline_memcpy_async(&As[s * BMM * BK + r * 32 + ((c ^ (r % 8)) * 4)], &A[(size_t)(m0 + r) * K + k0 + c * 4], 16);
    }
    #pragma unroll
    for (int it = 0; it < BK * (BNN / 4) / NT; it++) {
      const int e = tid + it * NT, kk = e / (BNN / 4), nn = e % (BNN / 4) * 4;
      __pipeline_memcpy_async(&Bs[s][kk][nn], &B[(size_t)(k0 + kk) * N + n0 + nn], 16);
    }
  };
  constexpr int PD = WAIT1 == 1 ? STAGES - 2 : STAGES - 1;
  for (int kt = 0; kt < PD; kt++) { if (kt < ntiles) load(kt); __pipeline_commit(); }
  unsigned a0[4][4], a1[4][4];
  #pragma unroll
  for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) a0[i][j] = a1[i][j] = 0;
  auto step = [&](int kt, unsigned (&a)[4][4], const unsigned (&prev)[4][4]) {
    __pipeline_wait_prior(PD - 1);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (kt + PD < ntiles) load(kt + PD);
    __pipeline_commit();
    const int s = kt % STAGES;
    #pragma unroll
    for (int ks = 0; ks < 4; ks++) {
      const int kk = ks * 8;
      a[ks][0] = tf32r(Bs[s][kk + t][nb + g]); a[ks][1] = tf32r(Bs[s][kk + t][nb + g + 8]);
      a[ks][2] = tf32r(Bs[s][kk + t + 4][nb + g]); a[ks][3] = tf32r(Bs[s][kk + t + 4][nb + g + 8]);
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    const unsigned base = (unsigned)__cvta_generic_to_shared(&As[s * BMM * BK]);
    #pragma unroll
    for (int ks = 0; ks < 4; ks++) {
      unsigned long long desc = (unsigned long long)(((base + ks * 32) >> 4) & 0x3fff) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
      wgmma_tf32_n256(d, a[ks], desc);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    if (WAIT1) {
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
      hold(prev);   // the previous group, retired only now, read its registers until here
    } else {
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      #pragma unroll
      for (int i = 0; i < BMM / 2; i++) asm volatile("" : "+f"(d[i])::"memory");
    }
  };
  // WAIT1 == 2: the next tile's fragments loaded while this tile's products run (their stage's barrier
  // too); the fragments in flight held live until their wait, so the next ones get other registers
  auto frags = [&](int s, unsigned (&a)[4][4]) {
    #pragma unroll
    for (int ks = 0; ks < 4; ks++) {
      const int kk = ks * 8;
      a[ks][0] = tf32r(Bs[s][kk + t][nb + g]); a[ks][1] = tf32r(Bs[s][kk + t][nb + g + 8]);
      a[ks][2] = tf32r(Bs[s][kk + t + 4][nb + g]); a[ks][3] = tf32r(Bs[s][kk + t + 4][nb + g + 8]);
    }
  };
  auto pre = [&](int kt, const unsigned (&a)[4][4], unsigned (&next)[4][4]) {
    const int s = kt % STAGES;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    const unsigned base = (unsigned)__cvta_generic_to_shared(&As[s * BMM * BK]);
    #pragma unroll
    for (int ks = 0; ks < 4; ks++) {
      unsigned long long desc = (unsigned long long)(((base + ks * 32) >> 4) & 0x3fff) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62);
      wgmma_tf32_n256(d, a[ks], desc);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    if (kt + 1 < ntiles) {
      __pipeline_wait_prior(STAGES - 3);
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncthreads();
      if (kt + STAGES - 1 < ntiles) load(kt + STAGES - 1);
      __pipeline_commit();
      frags((kt + 1) % STAGES, next);
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    hold(a);
  };
  if (WAIT1 == 2) {
    // tiles 0..STAGES-2 were started above (PD = STAGES - 1)
    __pipeline_wait_prior(STAGES - 2);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    frags(0, a0);
    for (int kt = 0; kt < ntiles; kt += 2) {
      pre(kt, a0, a1);
      if (kt + 1 < ntiles) pre(kt + 1, a1, a0);
    }
  } else {
    for (int kt = 0; kt < ntiles; kt += 2) {
      step(kt, a0, a1);
      if (kt + 1 < ntiles) step(kt + 1, a1, a0);
    }
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  hold(a0); hold(a1);
  #pragma unroll
  for (int i = 0; i < BMM / 2; i++) asm volatile("" : "+f"(d[i])::"memory");
  #pragma unroll
  for (int i = 0; i < BMM / 8; i++)
    #pragma unroll
    for (int v = 0; v < 4; v++) {
      const int n = n0 + nb + g + (v / 2) * 8, m = m0 + 8 * i + 2 * t + v % 2;
      C[(size_t)m * N + n] = d[4 * i + v];
    }
}

__global__ void naive(int M, int N, int K, const float *A, const float *B, float *C) {
  int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m < M && n < N) { float s = 0; for (int k = 0; k < K; k++) s += A[(size_t)m * K + k] * B[(size_t)k * N + n]; C[(size_t)m * N + n] = s; }
}

static int M = 4096, N = 4096, K = 4096;
static float *dA, *dB, *dC, *dR;
template <int STAGES, int WAIT1, int GROUP>
static void run(const char *name, const std::vector<float> &ref) {
  size_t sh = (size_t)STAGES * (256 * 32 * 4 + 32 * 136 * 4);
  auto kern = mm<STAGES, WAIT1, GROUP>;
  cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh);
  dim3 grid(N / 128, M / 256);
  cudaMemset(dC, 0, (size_t)M * N * 4);
  kern<<<grid, 256, sh>>>(M, N, K, dA, dB, dC);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) { printf("%s: %s\n", name, cudaGetErrorString(err)); exit(1); }
  std::vector<float> h((size_t)M * N); cudaMemcpy(h.data(), dC, h.size() * 4, cudaMemcpyDeviceToHost);
  double e = 0, s2 = 0; for (size_t i = 0; i < h.size(); i++) { double q = (double)h[i] - ref[i]; e += q * q; s2 += (double)ref[i] * ref[i]; }
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int r = 0; r < 40; r++) { cudaEventRecord(a); kern<<<grid, 256, sh>>>(M, N, K, dA, dB, dC); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  printf("%-36s median %.4f ms  min %.4f  %.0f TFLOP/s  relL2 vs fp32 naive %.3g\n", name, ts[20], ts[0], 2.0 * M * N * K / ts[20] / 1e9, std::sqrt(e / s2));
}
int main() {
  size_t n = (size_t)M * K;
  std::vector<float> hA(n), hB(n); srand(1);
  for (auto &x : hA) x = rand() / (float)RAND_MAX * 2 - 1;
  for (auto &x : hB) x = rand() / (float)RAND_MAX * 2 - 1;
  cudaMalloc(&dA, n * 4); cudaMalloc(&dB, n * 4); cudaMalloc(&dC, n * 4); cudaMalloc(&dR, n * 4);
  cudaMemcpy(dA, hA.data(), n * 4, cudaMemcpyHostToDevice); cudaMemcpy(dB, hB.data(), n * 4, cudaMemcpyHostToDevice);
  naive<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(M, N, K, dA, dB, dR); cudaDeviceSynchronize();
  std::vector<float> ref(n); cudaMemcpy(ref.data(), dR, n * 4, cudaMemcpyDeviceToHost);
  run<4, 2, 1>("prefetch-frags s4", ref);
  run<4, 2, 8>("prefetch-frags s4 group8", ref);
  run<3, 2, 8>("prefetch-frags s3 group8", ref);
  run<4, 0, 1>("wait0 s4", ref);
  run<4, 0, 8>("wait0 s4 group8", ref);
  run<4, 0, 16>("wait0 s4 group16", ref);
  run<4, 1, 1>("wait1 s4", ref);
  run<4, 1, 8>("wait1 s4 group8", ref);
  run<4, 1, 16>("wait1 s4 group16", ref);
  run<3, 0, 8>("wait0 s3 group8", ref);
  return 0;
}
