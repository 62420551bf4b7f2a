// bench/proto/ln_resident.cu: a hand-written prototype (not shipped, not a pass): layernorm with each row over P co-resident blocks holding their part on
// chip (registers + shared), parts meeting through a global workspace. Timing only.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

template <int HINT>
__device__ __forceinline__ float4 ldx(const float4 *p) {
  if (HINT >= 1) return __ldcs(p);
  return *p;
}
template <int HINT>
__device__ __forceinline__ void sty(float4 *p, float4 v) {
  if (HINT >= 1) __stcs(p, v); else *p = v;
}
template <int HINT>
__device__ __forceinline__ float4 ldw(const float4 *p, unsigned long long pol) {
  if (HINT >= 2) {
    float4 v;
    asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
    return v;
  }
  return __ldg(p);
}

// F: float4 per thread (part = F*T*4 floats), R of them in registers, F-R in shared memory.
template <int T, int F, int R, int HINT>
__global__ __launch_bounds__(T) void ln_grid(int rows, int cols, int P, float eps, const float *x,
                                             const float *w, const float *b, float *y,
                                             unsigned *ctr, float *state) {
  extern __shared__ float4 sm[];
  __shared__ unsigned s_ticket;
  __shared__ float s_red[2][T / 32];
  __shared__ float s_mean, s_inv;
  unsigned *ticket = ctr;
  unsigned *arrived = ctr + 1;
  unsigned *readc = ctr + 1 + rows;
  if (threadIdx.x == 0) {
    unsigned t = atomicAdd(ticket, 1u);
    if (t == gridDim.x - 1) *ticket = 0;
    s_ticket = t;
  }
  __syncthreads();
  unsigned t = s_ticket;
  int row = t / P, part = t % P;
  long long chunk = (long long)F * T * 4;
  const float4 *xr = reinterpret_cast<const float4 *>(x + (long long)row * cols + part * chunk);
  float4 *yr = reinterpret_cast<float4 *>(y + (long long)row * cols + part * chunk);
  const float4 *wr = reinterpret_cast<const float4 *>(w + part * chunk);
  const float4 *br = reinterpret_cast<const float4 *>(b + part * chunk);
  float4 reg[R > 0 ? R : 1];
  float s = 0.f, q = 0.f;
#pragma unroll
  for (int k = 0; k < F; k++) {
    float4 v = ldx<HINT>(xr + k * T + threadIdx.x);
    if (k < R) reg[k < R ? k : 0] = v;
    else sm[(k - R) * T + threadIdx.x] = v;
    s += (v.x + v.y) + (v.z + v.w);
    q += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
  }
  for (int o = 16; o; o /= 2) {
    s += __shfl_down_sync(~0u, s, o);
    q += __shfl_down_sync(~0u, q, o);
  }
  if (threadIdx.x % 32 == 0) s_red[0][threadIdx.x / 32] = s, s_red[1][threadIdx.x / 32] = q;
  __syncthreads();
  if (threadIdx.x == 0) {
    s = 0, q = 0;
    for (int i = 0; i < T / 32; i++) s += s_red[0][i], q += s_red[1][i];
    state[((long long)row * P + part) * 2] = s;
    state[((long long)row * P + part) * 2 + 1] = q;
    __threadfence();
    atomicAdd(&arrived[row], 1u);
    while (atomicAdd(&arrived[row], 0u) < (unsigned)P) __nanosleep(100);
    __threadfence();
    s = 0, q = 0;
    for (int p = 0; p < P; p++) s += __ldcg(&state[((long long)row * P + p) * 2]), q += __ldcg(&state[((long long)row * P + p) * 2 + 1]);
    float mean = s / cols;
    float var = q / cols - mean * mean;
    s_mean = mean;
    s_inv = rsqrtf(var + eps);
    if (atomicAdd(&readc[row], 1u) == (unsigned)P - 1) arrived[row] = 0, readc[row] = 0;
  }
  __syncthreads();
  float mean = s_mean, inv = s_inv;
  unsigned long long pol = 0;
  if (HINT >= 2) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
#pragma unroll
  for (int k = 0; k < F; k++) {
    float4 v = k < R ? reg[k < R ? k : 0] : sm[(k - R) * T + threadIdx.x];
    float4 ww = ldw<HINT>(wr + k * T + threadIdx.x, pol), bb = ldw<HINT>(br + k * T + threadIdx.x, pol);
    float4 o;
    o.x = (v.x - mean) * inv * ww.x + bb.x;
    o.y = (v.y - mean) * inv * ww.y + bb.y;
    o.z = (v.z - mean) * inv * ww.z + bb.z;
    o.w = (v.w - mean) * inv * ww.w + bb.w;
    sty<HINT>(yr + k * T + threadIdx.x, o);
  }
}

__global__ void copyk(const float4 *a, float4 *c, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) c[i] = a[i];
}

static float med(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

static const int ROWS = 16, COLS = 64 * 256 * 256;
static float *dx, *dw, *db, *dy;
static unsigned *dctr;
static float *dstate;
static std::vector<float> hx, hw, hb;

template <int T, int F, int R, int HINT>
static void run(const char *name) {
  int P = COLS / (F * T * 4);
  size_t sh = (size_t)(F - R) * T * 16;
  auto k = ln_grid<T, F, R, HINT>;
  if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh) != cudaSuccess) { printf("%s: attr fail\n", name); return; }
  int occ = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, T, sh);
  cudaFuncAttributes fa;
  cudaFuncGetAttributes(&fa, k);
  if (occ * 132 < P) { printf("%-28s P=%d occ=%d: too few resident\n", name, P, occ); return; }
  cudaMemset(dctr, 0, 4 * (1 + 2 * ROWS));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> ts;
  for (int i = 0; i < 40; i++) {
    cudaEventRecord(e0);
    k<<<ROWS * P, T, sh>>>(ROWS, COLS, P, 1e-5f, dx, dw, db, dy, dctr, dstate);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 5) ts.push_back(ms);
  }
  cudaError_t err = cudaGetLastError();
  // check row 3 against a double reference
  std::vector<float> hy(COLS);
  int r = 3;
  cudaMemcpy(hy.data(), dy + (size_t)r * COLS, 4ull * COLS, cudaMemcpyDeviceToHost);
  double s = 0, q = 0;
  for (int j = 0; j < COLS; j++) s += hx[(size_t)r * COLS + j];
  double mean = s / COLS;
  for (int j = 0; j < COLS; j++) { double d = hx[(size_t)r * COLS + j] - mean; q += d * d; }
  double inv = 1 / sqrt(q / COLS + 1e-5), maxerr = 0;
  for (int j = 0; j < COLS; j++) {
    double ref = (hx[(size_t)r * COLS + j] - mean) * inv * hw[j] + hb[j];
    maxerr = std::max(maxerr, fabs(ref - hy[j]));
  }
  printf("%-28s P=%4d T=%d F=%2d R=%2d sh=%6zu regs=%3d occ=%d  median %.4f ms  min %.4f  err %.2e %s\n", name, P, T, F, R, sh,
         fa.numRegs, occ, med(ts), *std::min_element(ts.begin(), ts.end()), maxerr, cudaGetErrorString(err));
}

int main() {
  size_t n = (size_t)ROWS * COLS;
  hx.resize(n); hw.resize(COLS); hb.resize(COLS);
  srand(1);
  for (auto &v : hx) v = 0.5f + 2.f * ((rand() / (float)RAND_MAX) - 0.5f);
  for (auto &v : hw) v = 0.5f + rand() / (float)RAND_MAX;
  for (auto &v : hb) v = -1 + 2 * rand() / (float)RAND_MAX;
  cudaMalloc(&dx, 4 * n); cudaMalloc(&dy, 4 * n); cudaMalloc(&dw, 4 * COLS); cudaMalloc(&db, 4 * COLS);
  cudaMalloc(&dctr, 4 * (1 + 2 * ROWS)); cudaMalloc(&dstate, 8 * ROWS * 1024);
  cudaMemcpy(dx, hx.data(), 4 * n, cudaMemcpyHostToDevice);
  cudaMemcpy(dw, hw.data(), 4 * COLS, cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb.data(), 4 * COLS, cudaMemcpyHostToDevice);
  {  // copy floor: read 256 MiB + write 256 MiB
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    std::vector<float> ts;
    for (int i = 0; i < 30; i++) {
      cudaEventRecord(e0);
      copyk<<<132 * 8, 512>>>((const float4 *)dx, (float4 *)dy, n / 4);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (i >= 5) ts.push_back(ms);
    }
    printf("copy 512 MiB: median %.4f ms\n", med(ts));
  }
  // P = 4194304 / (F*T*4)
  run<256, 16, 4, 0>("T256 F16 R4 h0");     // P=256, 48K smem
  run<256, 16, 4, 1>("T256 F16 R4 h1");
  run<256, 16, 4, 2>("T256 F16 R4 h2");
  run<256, 16, 8, 1>("T256 F16 R8 h1");
  run<256, 16, 8, 2>("T256 F16 R8 h2");
  run<512, 16, 4, 1>("T512 F16 R4 h1");     // P=128, 96K smem
  run<512, 16, 4, 2>("T512 F16 R4 h2");
  run<512, 8, 4, 1>("T512 F8 R4 h1");       // P=256, 32K smem
  run<512, 8, 4, 2>("T512 F8 R4 h2");
  run<256, 8, 4, 1>("T256 F8 R4 h1");       // P=512, 16K
  run<256, 8, 4, 2>("T256 F8 R4 h2");
  run<1024, 8, 4, 2>("T1024 F8 R4 h2");     // P=128, 64K
  run<1024, 4, 4, 2>("T1024 F4 R4 h2");     // P=256, regs only
  run<256, 32, 8, 2>("T256 F32 R8 h2");     // P=128, 96K
  return 0;
}
