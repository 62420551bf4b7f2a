// bench/proto/ln_lag.cu: a hand-written prototype (not shipped, not a pass): layernorm on a
// persistent grid whose blocks meet once a row without waiting for it. Block g owns the elements
// g*T + t, (g + G)*T + t, ... (float4 steps) of every row. It walks the statistics of row r
// (stage A), leaves its partial sums and counts itself in; the last block of the row to arrive
// combines the G partials in a fixed order and publishes the row's mean and 1/std. The block then
// normalises row r - 1 (stage B), whose statistics were published while it walked row r, so it
// rarely waits; stage B reads x again, and the question is how much of row r - 1 is still in L2
// (two rows and weight and bias: 16 + 16 + 32 MiB against the H200's 60 MB).
// LAG = 0 normalises row r right after its statistics (a grid-wide wait every row), for
// comparison. HINT: 0 plain; 1 y streamed (st.cs); 2 also stage B's x read evict-first; 3 also
// stage A's x read evict-last; 4 as 1 with weight and bias evict-last. Timing only, checked
// against a float64 reference on a few rows.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>

__device__ __forceinline__ float4 ld_pol(const float4 *p, unsigned long long pol) {
  float4 v;
  asm volatile("ld.global.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
  return v;
}
__device__ __forceinline__ float4 ldg_pol(const float4 *p, unsigned long long pol) {
  float4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol));
  return v;
}

template <int T>
__device__ __forceinline__ double2 block_sum2(double a, double b, double2 *red) {
  for (int o = 16; o; o /= 2) a += __shfl_xor_sync(~0u, a, o), b += __shfl_xor_sync(~0u, b, o);
  __syncthreads();
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = make_double2(a, b);
  __syncthreads();
  double2 s = red[0];
  for (int i = 1; i < T / 32; i++) s.x += red[i].x, s.y += red[i].y;
  return s;
}

template <int T, int LAG, int HINT, int U>
__global__ __launch_bounds__(T) void ln_lag(int rows, int cols, float eps, const float *x,
                                            const float *w, const float *b, float *y,
                                            unsigned *arrive, unsigned *flag, double2 *part,
                                            float2 *stat, unsigned gen) {
  __shared__ double2 red[T / 32];
  __shared__ unsigned last;
  const int G = gridDim.x, g = blockIdx.x, t = threadIdx.x;
  const int n4 = cols / 4;
  unsigned long long first, keep;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(first));
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(keep));
  auto stats = [&](int r) {
    const float4 *xr = reinterpret_cast<const float4 *>(x) + (size_t)r * n4;
    float s = 0.f, q = 0.f;
    int i = g * T + t;
    for (; i + (U - 1) * G * T < n4; i += U * G * T) {
      float4 v[U];
#pragma unroll
      for (int u = 0; u < U; u++) v[u] = HINT == 3 ? ld_pol(xr + i + u * G * T, keep) : xr[i + u * G * T];
#pragma unroll
      for (int u = 0; u < U; u++) {
        s += (v[u].x + v[u].y) + (v[u].z + v[u].w);
        q += (v[u].x * v[u].x + v[u].y * v[u].y) + (v[u].z * v[u].z + v[u].w * v[u].w);
      }
    }
    for (; i < n4; i += G * T) {
      float4 v = xr[i];
      s += (v.x + v.y) + (v.z + v.w);
      q += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
    }
    double2 a = block_sum2<T>(s, q, red);
    if (t == 0) {
      part[(size_t)r * G + g] = a;
      __threadfence();
      last = atomicAdd(&arrive[r], 1u) == gen * G - 1;
    }
    __syncthreads();
    if (last) {  // the row's last block: combine the G partials in order of g
      __threadfence();
      double s2 = 0, q2 = 0;
      for (int p = t; p < G; p += T) {
        double2 v = __ldcg(&part[(size_t)r * G + p]);
        s2 += v.x, q2 += v.y;
      }
      double2 tot = block_sum2<T>(s2, q2, red);
      if (t == 0) {
        double mean = tot.x / cols, var = tot.y / cols - mean * mean;
        stat[r] = make_float2((float)mean, (float)(1.0 / sqrt(var + eps)));
        __threadfence();
        atomicExch(&flag[r], gen);
      }
    }
  };
  auto normalise = [&](int r) {
    __shared__ float2 st;
    if (t == 0) {
      while (*(volatile unsigned *)&flag[r] != gen) __nanosleep(64);
      __threadfence();
      st = __ldcg(&stat[r]);
    }
    __syncthreads();
    const float mean = st.x, inv = st.y;
    const float4 *xr = reinterpret_cast<const float4 *>(x) + (size_t)r * n4;
    const float4 *w4 = reinterpret_cast<const float4 *>(w), *b4 = reinterpret_cast<const float4 *>(b);
    float4 *yr = reinterpret_cast<float4 *>(y) + (size_t)r * n4;
    for (int i = g * T + t; i < n4; i += G * T) {
      float4 v = HINT >= 2 && HINT <= 3 ? ld_pol(xr + i, first) : xr[i];
      float4 ww = HINT == 4 ? ldg_pol(w4 + i, keep) : __ldg(w4 + i);
      float4 bb = HINT == 4 ? ldg_pol(b4 + i, keep) : __ldg(b4 + i);
      float4 o;
      o.x = (v.x - mean) * inv * ww.x + bb.x;
      o.y = (v.y - mean) * inv * ww.y + bb.y;
      o.z = (v.z - mean) * inv * ww.z + bb.z;
      o.w = (v.w - mean) * inv * ww.w + bb.w;
      if (HINT >= 1) __stcs(yr + i, o); else yr[i] = o;
    }
    __syncthreads();
  };
  for (int r = 0; r < rows; r++) {
    stats(r);
    if (LAG == 0) normalise(r);
    else if (r > 0) normalise(r - 1);
  }
  if (LAG) normalise(rows - 1);
}

struct Bufs {
  float *x, *w, *b, *y;
  unsigned *arrive, *flag;
  double2 *part;
  float2 *stat;
};

double check(int rows, int cols, Bufs &B, const std::vector<float> &hx, const std::vector<float> &hw,
             const std::vector<float> &hb) {
  std::vector<float> hy((size_t)cols);
  double maxerr = 0;
  for (int r : {0, rows / 2, rows - 1}) {
    cudaMemcpy(hy.data(), B.y + (size_t)r * cols, (size_t)cols * 4, cudaMemcpyDeviceToHost);
    double s = 0, q = 0;
    for (int i = 0; i < cols; i++) s += hx[(size_t)r * cols + i];
    double mean = s / cols;
    for (int i = 0; i < cols; i++) { double d = hx[(size_t)r * cols + i] - mean; q += d * d; }
    double inv = 1.0 / sqrt(q / cols + 1e-5);
    for (int i = 0; i < cols; i += 997) {
      double ref = (hx[(size_t)r * cols + i] - mean) * inv * hw[i] + hb[i];
      maxerr = std::max(maxerr, fabs(ref - hy[i]));
    }
  }
  cudaMemset(B.y, 0, (size_t)rows * cols * 4);
  return maxerr;
}

template <int T, int LAG, int HINT, int U>
void run(const char *name, int per_sm, int rows, int cols, Bufs &B, int sms, const std::vector<float> &hx,
         const std::vector<float> &hw, const std::vector<float> &hb) {
  auto k = ln_lag<T, LAG, HINT, U>;
  int occ = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, T, 0);
  if (occ < per_sm) { printf("%-28s occ %d < %d: skipped\n", name, occ, per_sm); return; }
  int G = sms * per_sm;
  static unsigned gen = 0;
  cudaMemset(B.arrive, 0, rows * 4);
  cudaMemset(B.flag, 0, rows * 4);
  gen = 0;
  std::vector<float> ts;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  for (int i = 0; i < 60; i++) {
    ++gen;
    cudaEventRecord(e0);
    k<<<G, T>>>(rows, cols, 1e-5f, B.x, B.w, B.b, B.y, B.arrive, B.flag, B.part, B.stat, gen);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 10) ts.push_back(ms);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { printf("%s: %s\n", name, cudaGetErrorString(e)); exit(1); }
  std::sort(ts.begin(), ts.end());
  double maxerr = check(rows, cols, B, hx, hw, hb);
  printf("%-28s G=%4d T=%4d occ=%d median %.4f ms min %.4f max %.4f  maxerr %.2e\n", name, G, T, occ,
         ts[ts.size() / 2], ts[0], ts.back(), maxerr);
}

// The row read once: block g's part of row r arrives in registers (F float4 a thread, all loads
// issued together) for its statistics, row r - 1's part waits in shared memory for its normalising
// sweep, and row r's registers then take its place.
template <int T, int F, int MINB, int HINT>
__global__ __launch_bounds__(T, MINB) void ln_keep(int rows, int cols, float eps, const float *x,
                                                   const float *w, const float *b, float *y,
                                                   unsigned *arrive, unsigned *flag, double2 *part,
                                                   float2 *stat, unsigned gen) {
  extern __shared__ float4 keep4[];  // F * T float4: the previous row's part
  __shared__ double2 red[T / 32];
  __shared__ unsigned last;
  __shared__ float2 st;
  const int G = gridDim.x, g = blockIdx.x, t = threadIdx.x;
  const int n4 = cols / 4;
  const float4 *w4 = reinterpret_cast<const float4 *>(w), *b4 = reinterpret_cast<const float4 *>(b);
  float4 cur[F];
  for (int r = 0; r <= rows; r++) {
    if (r < rows) {
      const float4 *xr = reinterpret_cast<const float4 *>(x) + (size_t)r * n4;
#pragma unroll
      for (int k = 0; k < F; k++) {
        int i = (k * G + g) * T + t;
        cur[k] = i < n4 ? (HINT & 1 ? __ldcs(xr + i) : xr[i]) : make_float4(0, 0, 0, 0);
      }
      float s = 0.f, q = 0.f;
#pragma unroll
      for (int k = 0; k < F; k++) {
        s += (cur[k].x + cur[k].y) + (cur[k].z + cur[k].w);
        q += (cur[k].x * cur[k].x + cur[k].y * cur[k].y) + (cur[k].z * cur[k].z + cur[k].w * cur[k].w);
      }
      double2 a = block_sum2<T>(s, q, red);
      if (t == 0) {
        part[(size_t)r * G + g] = a;
        __threadfence();
        last = atomicAdd(&arrive[r], 1u) == gen * G - 1;
      }
      __syncthreads();
      if (last) {
        __threadfence();
        double s2 = 0, q2 = 0;
        for (int p = t; p < G; p += T) {
          double2 v = __ldcg(&part[(size_t)r * G + p]);
          s2 += v.x, q2 += v.y;
        }
        double2 tot = block_sum2<T>(s2, q2, red);
        if (t == 0) {
          double mean = tot.x / cols, var = tot.y / cols - mean * mean;
          stat[r] = make_float2((float)mean, (float)(1.0 / sqrt(var + eps)));
          __threadfence();
          atomicExch(&flag[r], gen);
        }
      }
    }
    if (r > 0) {  // normalise row r - 1 from shared memory
      if (t == 0) {
        while (*(volatile unsigned *)&flag[r - 1] != gen) __nanosleep(64);
        __threadfence();
        st = __ldcg(&stat[r - 1]);
      }
      __syncthreads();
      const float mean = st.x, inv = st.y;
      float4 *yr = reinterpret_cast<float4 *>(y) + (size_t)(r - 1) * n4;
#pragma unroll
      for (int k = 0; k < F; k++) {
        int i = (k * G + g) * T + t;
        if (i < n4) {
          float4 v = keep4[k * T + t], ww = make_float4(1, 1, 1, 1), bb = make_float4(0, 0, 0, 0), o;
          if (!(HINT & 2)) ww = __ldg(w4 + i), bb = __ldg(b4 + i);
          o.x = (v.x - mean) * inv * ww.x + bb.x;
          o.y = (v.y - mean) * inv * ww.y + bb.y;
          o.z = (v.z - mean) * inv * ww.z + bb.z;
          o.w = (v.w - mean) * inv * ww.w + bb.w;
          if (HINT & 1) __stcs(yr + i, o); else yr[i] = o;
        }
      }
    }
    if (r < rows) {
#pragma unroll
      for (int k = 0; k < F; k++) keep4[k * T + t] = cur[k];
    }
    __syncthreads();
  }
}

template <int T, int F, int MINB, int HINT>
void run_keep(const char *name, int per_sm, int rows, int cols, Bufs &B, int sms, const std::vector<float> &hx,
              const std::vector<float> &hw, const std::vector<float> &hb) {
  auto k = ln_keep<T, F, MINB, HINT>;
  int G = sms * per_sm;
  if ((size_t)F * G * T * 4 < (size_t)cols) { printf("%-28s F too small for G=%d\n", name, G); return; }
  size_t sh = (size_t)F * T * 16;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh);
  int occ = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, T, sh);
  cudaFuncAttributes fa;
  cudaFuncGetAttributes(&fa, k);
  if (occ < per_sm) { printf("%-28s occ %d < %d (regs %d, local %zu): skipped\n", name, occ, per_sm, fa.numRegs, fa.localSizeBytes); return; }
  cudaMemset(B.arrive, 0, rows * 4);
  cudaMemset(B.flag, 0, rows * 4);
  unsigned gen = 0;
  std::vector<float> ts;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  for (int i = 0; i < 60; i++) {
    ++gen;
    cudaEventRecord(e0);
    k<<<G, T, sh>>>(rows, cols, 1e-5f, B.x, B.w, B.b, B.y, B.arrive, B.flag, B.part, B.stat, gen);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 10) ts.push_back(ms);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) { printf("%s: %s\n", name, cudaGetErrorString(e)); exit(1); }
  std::sort(ts.begin(), ts.end());
  printf("%-28s G=%4d T=%4d F=%d occ=%d regs=%d local=%zu median %.4f ms min %.4f max %.4f  maxerr %.2e\n", name, G, T, F, occ,
         fa.numRegs, fa.localSizeBytes, ts[ts.size() / 2], ts[0], ts.back(), check(rows, cols, B, hx, hw, hb));
}

__global__ void copy4(const float4 *a, float4 *b, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}

int main() {
  const int rows = 16, cols = 64 * 256 * 256;
  size_t n = (size_t)rows * cols;
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  std::vector<float> hx(n), hw(cols), hb(cols);
  srand(1);
  for (auto &v : hx) v = rand() / (float)RAND_MAX * 2 - 1 + 0.5f;
  for (auto &v : hw) v = rand() / (float)RAND_MAX * 2 - 1;
  for (auto &v : hb) v = rand() / (float)RAND_MAX * 2 - 1;
  Bufs B;
  cudaMalloc(&B.x, n * 4), cudaMalloc(&B.y, n * 4), cudaMalloc(&B.w, cols * 4), cudaMalloc(&B.b, cols * 4);
  cudaMalloc(&B.arrive, rows * 4), cudaMalloc(&B.flag, rows * 4);
  cudaMalloc(&B.part, (size_t)rows * 2048 * sizeof(double2)), cudaMalloc(&B.stat, rows * sizeof(float2));
  cudaMemcpy(B.x, hx.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B.w, hw.data(), cols * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B.b, hb.data(), cols * 4, cudaMemcpyHostToDevice);
  {
    std::vector<float> ts;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    for (int i = 0; i < 60; i++) {
      cudaEventRecord(e0);
      copy4<<<(n / 4 + 255) / 256, 256>>>((const float4 *)B.x, (float4 *)B.y, n / 4);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      if (i >= 10) ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    printf("copy of x (read 256 MiB, write 256 MiB): median %.4f ms\n", ts[ts.size() / 2]);
  }
  run_keep<256, 8, 4, 1>("keep T256 F8 h1 x4", 4, rows, cols, B, sms, hx, hw, hb);
  run_keep<256, 8, 4, 3>("keep T256 F8 h1 x4 no w/b", 4, rows, cols, B, sms, hx, hw, hb);
  run_keep<512, 8, 2, 3>("keep T512 F8 h1 x2 no w/b", 2, rows, cols, B, sms, hx, hw, hb);
  run_keep<128, 8, 8, 1>("keep T128 F8 h1 x8", 8, rows, cols, B, sms, hx, hw, hb);
  run_keep<128, 8, 8, 3>("keep T128 F8 h1 x8 no w/b", 8, rows, cols, B, sms, hx, hw, hb);
  printf("no error\n");
  return 0;
}
