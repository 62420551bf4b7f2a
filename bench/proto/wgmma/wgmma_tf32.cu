// bench/proto/wgmma_tf32.cu: a hand-written tf32 matmul on Hopper's wgmma, to learn what the pass
// should emit. C^T = B^T A^T: wgmma's A operand (64 rows of n x 8 k) comes from registers loaded from
// the staged B tile ([k][n], as staged now), its B operand is the A tile (m x k, k contiguous: the
// K-major layout tf32 requires) in shared memory, in 8 x 16-byte core matrices.
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
template <int N> __device__ __forceinline__ void wg(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long desc);
template <> __device__ __forceinline__ void wg<64>(float (&d)[32], const unsigned (&a)[4], unsigned long long desc) { wgmma_tf32_n64(d, a, desc); }
template <> __device__ __forceinline__ void wg<128>(float (&d)[64], const unsigned (&a)[4], unsigned long long desc) { wgmma_tf32_n128(d, a, desc); }
template <> __device__ __forceinline__ void wg<256>(float (&d)[128], const unsigned (&a)[4], unsigned long long desc) { wgmma_tf32_n256(d, a, desc); }

template <int WGS, int BMM, int BK, int STAGES, int ROUND, int SWAP, int WAIT1, int SWZ>
__global__ void __launch_bounds__(128 * WGS, 1) mm(int M, int N, int K, const float *A, const float *B, float *C) {
  constexpr int BNN = 64 * WGS, NT = 128 * WGS, CH = BK / 4;
  extern __shared__ __align__(1024) unsigned char smem[];
  float *As = reinterpret_cast<float *>(smem);                       // [STAGES][BMM * BK], core matrices
  float (*Bs)[BK][BNN + 8] = reinterpret_cast<float (*)[BK][BNN + 8]>(smem + STAGES * BMM * BK * 4);
  const int tid = threadIdx.x, m0 = blockIdx.y * BMM, n0 = blockIdx.x * BNN;
  const int wg_ = tid / 128, w = tid % 128 / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int nb = wg_ * 64 + w * 16;
  float d[BMM / 2];
  #pragma unroll
  for (int i = 0; i < BMM / 2; i++) d[i] = 0.f;
  const int ntiles = K / BK;
  auto load = [&](int kt) {
    const int s = kt % STAGES, k0 = kt * BK;
    #pragma unroll
    for (int it = 0; it < BMM * CH / NT; it++) {
      if (SWZ) {   // 128-byte rows, chunk c of row r at c ^ (r % 8)
        const int e = tid + it * NT, r = e / 8, c = e % 8;
        __pipeline_memcpy_async(&As[s * BMM * BK + r * 32 + ((c ^ (r % 8)) * 4)], &A[(size_t)(m0 + r) * K + k0 + c * 4], 16);
      } else {
      const int e = tid + it * NT, rr = e % 8, c = e / 8 % CH, rb = e / (8 * CH);
      __pipeline_memcpy_async(&As[s * BMM * BK + (rb * CH + c) * 32 + rr * 4], &A[(size_t)(m0 + rb * 8 + rr) * K + k0 + c * 4], 16);
      }
    }
    #pragma unroll
    for (int it = 0; it < BK * (BNN / 4) / NT; it++) {
      const int e = tid + it * NT, kk = e / (BNN / 4), nn = e % (BNN / 4) * 4;
      __pipeline_memcpy_async(&Bs[s][kk][nn], &B[(size_t)(k0 + kk) * N + n0 + nn], 16);
    }
  };
  constexpr int PD = WAIT1 ? STAGES - 2 : STAGES - 1;
  for (int kt = 0; kt < PD; kt++) { if (kt < ntiles) load(kt); __pipeline_commit(); }
  const unsigned long long lbo = SWAP ? CH * 128 : 128, sbo = SWAP ? 128 : CH * 128;
  for (int kt = 0; kt < ntiles; kt++) {
    __pipeline_wait_prior(PD - 1);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (kt + PD < ntiles) load(kt + PD);
    __pipeline_commit();
    const int s = kt % STAGES;
    if (ROUND == 2) {  // round the smem operand in place (tf32 rna), then a barrier
      for (int j = tid; j < BMM * BK / 4; j += NT) {
        float4 *q = reinterpret_cast<float4 *>(&As[s * BMM * BK + j * 4]);
        float4 v = *q;
        v.x = __uint_as_float(tf32r(v.x)); v.y = __uint_as_float(tf32r(v.y));
        v.z = __uint_as_float(tf32r(v.z)); v.w = __uint_as_float(tf32r(v.w));
        *q = v;
      }
      asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncthreads();
    }
    unsigned a[BK / 8][4];
    #pragma unroll
    for (int ks = 0; ks < BK / 8; ks++) {
      const int kk = ks * 8;
      float v0 = Bs[s][kk + t][nb + g], v1 = Bs[s][kk + t][nb + g + 8], v2 = Bs[s][kk + t + 4][nb + g], v3 = Bs[s][kk + t + 4][nb + g + 8];
      if (ROUND) { a[ks][0] = tf32r(v0); a[ks][1] = tf32r(v1); a[ks][2] = tf32r(v2); a[ks][3] = tf32r(v3); }
      else { a[ks][0] = __float_as_uint(v0); a[ks][1] = __float_as_uint(v1); a[ks][2] = __float_as_uint(v2); a[ks][3] = __float_as_uint(v3); }
    }
    if (!WAIT1) {
      #pragma unroll
      for (int i = 0; i < BMM / 2; i++) asm volatile("" : "+f"(d[i])::"memory");
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    const unsigned base = (unsigned)__cvta_generic_to_shared(&As[s * BMM * BK]);
    #pragma unroll
    for (int ks = 0; ks < BK / 8; ks++) {
      unsigned long long desc = SWZ ? ((unsigned long long)(((base + ks * 32) >> 4) & 0x3fff) | (1ull << 16) | ((1024ull >> 4) << 32) | (1ull << 62))
                                    : ((unsigned long long)(((base + ks * 256) >> 4) & 0x3fff) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32));
      wg<BMM>(d, a[ks], desc);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    if (WAIT1) {
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    } else {
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      #pragma unroll
      for (int i = 0; i < BMM / 2; i++) asm volatile("" : "+f"(d[i])::"memory");
    }
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
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
static double rel(const std::vector<float> &x, const std::vector<float> &r) {
  double e = 0, s = 0; for (size_t i = 0; i < x.size(); i++) { double q = (double)x[i] - r[i]; e += q * q; s += (double)r[i] * r[i]; } return std::sqrt(e / s);
}
template <int WGS, int BMM, int BK, int STAGES, int ROUND, int SWAP, int WAIT1, int SWZ = 0>
static void run(const char *name, const std::vector<float> &ref) {
  constexpr int BNN = 64 * WGS;
  size_t sh = (size_t)STAGES * (BMM * BK * 4 + BK * (BNN + 8) * 4);
  auto kern = mm<WGS, BMM, BK, STAGES, ROUND, SWAP, WAIT1, SWZ>;
  if (SWZ && BK != 32) { printf("%s: SWZ needs BK 32\n", name); return; }
  if (cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh) != cudaSuccess) { printf("%s: smem %zu refused\n", name, sh); cudaGetLastError(); return; }
  dim3 grid(N / BNN, M / BMM);
  cudaMemset(dC, 0, (size_t)M * N * 4);
  kern<<<grid, 128 * WGS, sh>>>(M, N, K, dA, dB, dC);
  cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) { printf("%s: %s\n", name, cudaGetErrorString(err)); exit(1); }
  std::vector<float> h((size_t)M * N); cudaMemcpy(h.data(), dC, h.size() * 4, cudaMemcpyDeviceToHost);
  double e = rel(h, ref);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> ts;
  for (int r = 0; r < 30; r++) { cudaEventRecord(a); kern<<<grid, 128 * WGS, sh>>>(M, N, K, dA, dB, dC); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); ts.push_back(ms); }
  std::sort(ts.begin(), ts.end());
  printf("%-44s median %.4f ms  min %.4f  %.0f TFLOP/s  relL2 vs fp32 naive %.3g  smem %zu\n", name, ts[15], ts[0], 2.0 * M * N * K / ts[15] / 1e9, e, sh);
}
#include <algorithm>
int main() {
  size_t n = (size_t)M * K;
  std::vector<float> hA(n), hB(n); srand(1);
  for (auto &x : hA) x = rand() / (float)RAND_MAX * 2 - 1;
  for (auto &x : hB) x = rand() / (float)RAND_MAX * 2 - 1;
  cudaMalloc(&dA, n * 4); cudaMalloc(&dB, n * 4); cudaMalloc(&dC, n * 4); cudaMalloc(&dR, n * 4);
  cudaMemcpy(dA, hA.data(), n * 4, cudaMemcpyHostToDevice); cudaMemcpy(dB, hB.data(), n * 4, cudaMemcpyHostToDevice);
  naive<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(M, N, K, dA, dB, dR); cudaDeviceSynchronize();
  std::vector<float> ref(n); cudaMemcpy(ref.data(), dR, n * 4, cudaMemcpyDeviceToHost);

  run<2, 256, 32, 4, 1, 0, 0, 1>("SWZ wg2 m256 s4 roundB", ref);
  run<2, 256, 32, 4, 1, 0, 1, 1>("SWZ wg2 m256 s4 roundB wait1", ref);
  run<2, 256, 32, 4, 0, 0, 1, 1>("SWZ wg2 m256 s4 noround wait1", ref);
  run<2, 256, 32, 4, 2, 0, 1, 1>("SWZ wg2 m256 s4 round-smem wait1", ref);
  run<2, 256, 32, 3, 1, 0, 1, 1>("SWZ wg2 m256 s3 roundB wait1", ref);
  run<4, 128, 32, 4, 1, 0, 0, 1>("SWZ wg4 m128 s4 roundB", ref);
  run<4, 128, 32, 4, 1, 0, 1, 1>("SWZ wg4 m128 s4 roundB wait1", ref);
  run<4, 128, 32, 6, 1, 0, 1, 1>("SWZ wg4 m128 s6 roundB wait1", ref);
  run<2, 128, 32, 6, 1, 0, 1, 1>("SWZ wg2 m128 s6 roundB wait1", ref);
  run<2, 256, 32, 4, 1, 0, 1, 0>("noSWZ wg2 m256 s4 roundB wait1", ref);
  run<4, 128, 32, 4, 1, 0, 1, 0>("noSWZ wg4 m128 s4 roundB wait1", ref);
  return 0;
}
