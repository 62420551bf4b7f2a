// bench/proto/spmv_gather.cu: a hand-written probe (not shipped, not a pass): how fast can the H200
// gather x at spmv_csr's benchmark shape (2^20 rows of 32 non-zeros in uniformly random columns of
// a 2^20-element x)? Kernels: the stream alone (values and colind, no gather), the gather alone
// (colind and x[colind]), both (an spmv without rows), and a warp a row as warp_reduce emits it.
// Timing only (60 launches, the first 10 dropped, median of cudaEvent times).
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

__global__ void stream_only(size_t nnz, const int *col, const float *val, float *out) {
  float s = 0;
  for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz / 4; e += (size_t)gridDim.x * blockDim.x) {
    int4 c = reinterpret_cast<const int4 *>(col)[e];
    float4 v = reinterpret_cast<const float4 *>(val)[e];
    s += v.x * c.x + v.y * c.y + v.z * c.z + v.w * c.w;
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <int NC>
__global__ void gather_only(size_t nnz, const int *col, const float *x, float *out) {
  float s = 0;
  for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz / 4; e += (size_t)gridDim.x * blockDim.x) {
    int4 c = reinterpret_cast<const int4 *>(col)[e];
    if (NC) s += __ldg(x + c.x) + __ldg(x + c.y) + __ldg(x + c.z) + __ldg(x + c.w);
    else s += x[c.x] + x[c.y] + x[c.z] + x[c.w];
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void flat_spmv(size_t nnz, const int *col, const float *val, const float *x, float *out) {
  float s = 0;
  for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < nnz / 4; e += (size_t)gridDim.x * blockDim.x) {
    int4 c = reinterpret_cast<const int4 *>(col)[e];
    float4 v = reinterpret_cast<const float4 *>(val)[e];
    s += v.x * __ldg(x + c.x) + v.y * __ldg(x + c.y) + v.z * __ldg(x + c.z) + v.w * __ldg(x + c.w);
  }
  out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void warp_row(int m, const int *rowptr, const int *col, const float *val, const float *x, float *y) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (row >= m) return;
  float s = 0;
  for (int e = rowptr[row] + lane; e < rowptr[row + 1]; e += 32) s += val[e] * __ldg(x + col[e]);
  for (int o = 16; o; o /= 2) s += __shfl_xor_sync(~0u, s, o);
  if (lane == 0) y[row] = s;
}

template <class F>
float timeit(F f) {
  std::vector<float> ts;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  for (int i = 0; i < 60; i++) {
    cudaEventRecord(e0);
    f();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 10) ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

int main() {
  const int m = 1 << 20, n = 1 << 20, k = 32;
  const size_t nnz = (size_t)m * k;
  std::vector<int> hp(m + 1), hc(nnz);
  std::vector<float> hv(nnz), hx(n);
  srand(1);
  for (int i = 0; i <= m; i++) hp[i] = i * k;
  for (auto &c : hc) c = (int)(((unsigned)rand() * 2654435761u) % n);
  for (auto &v : hv) v = rand() / (float)RAND_MAX;
  for (auto &v : hx) v = rand() / (float)RAND_MAX;
  int *p, *c;
  float *v, *x, *y, *out;
  cudaMalloc(&p, (m + 1) * 4), cudaMalloc(&c, nnz * 4), cudaMalloc(&v, nnz * 4), cudaMalloc(&x, n * 4);
  cudaMalloc(&y, m * 4), cudaMalloc(&out, 132 * 2048 * 4 * 8);
  cudaMemcpy(p, hp.data(), (m + 1) * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(c, hc.data(), nnz * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(v, hv.data(), nnz * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(x, hx.data(), n * 4, cudaMemcpyHostToDevice);
  const double floor_bytes = 4.0 * (m + 1) + 8.0 * nnz + 4.0 * n + 4.0 * m;
  printf("bytes floor %.1f MB: %.4f ms at 4.27 TB/s\n", floor_bytes / 1e6, floor_bytes / 4.27e12 * 1e3);
  for (int per : {8, 16, 32}) {
    int G = 132 * per / 4;  // blocks of 1024 threads... per = blocks of 256 an SM
    int T = 256;
    G = 132 * per;
    float a = timeit([&] { stream_only<<<G, T>>>(nnz, c, v, out); });
    float b = timeit([&] { gather_only<0><<<G / 2, T>>>(nnz, c, x, out); });
    float b2 = timeit([&] { gather_only<1><<<G / 2, T>>>(nnz, c, x, out); });
    float d = timeit([&] { flat_spmv<<<G / 2, T>>>(nnz, c, v, x, out); });
    printf("blocks %5d: stream (values+colind, 268 MB) %.4f ms | gather (colind + x[colind]) %.4f, ldg %.4f | flat spmv %.4f\n",
           G, a, b, b2, d);
  }
  float w = timeit([&] { warp_row<<<m / 4, 128>>>(m, p, c, v, x, y); });
  printf("warp a row (128 threads a block): %.4f ms\n", w);
  cudaError_t e = cudaGetLastError();
  printf("%s\n", e == cudaSuccess ? "no error" : cudaGetErrorString(e));
  return 0;
}
