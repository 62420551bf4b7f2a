// bench/proto/copy_ceiling.cu: what a copy reaches on this GPU, for the memory-bound problems'
// floors (a problem's floor is its bytes at 4.27 TB/s; a kernel that reads and writes as much as a
// copy cannot beat a copy). cudaMemcpy device to device, and copy kernels (16-byte words, a
// grid-stride loop; U words in flight a thread), over 256 MiB and 1 GiB; median of 50 launches
// after 5, by cudaEvent.
//   nvcc -O3 -arch=sm_90 -o copy_ceiling bench/proto/copy_ceiling.cu && ./copy_ceiling
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>

template <int U>
__global__ void copy_words(const float4 *__restrict__ a, float4 *__restrict__ c, long long n) {
  long long stride = (long long)gridDim.x * blockDim.x;
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = a[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; u++) c[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) c[i] = a[i];
}

template <typename F>
static float median_ms(F f) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  std::vector<float> t;
  for (int i = 0; i < 55; i++) {
    cudaEventRecord(e0);
    f();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (i >= 5) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  for (size_t bytes : {(size_t)256 << 20, (size_t)1 << 30}) {
    float4 *a, *c;
    cudaMalloc(&a, bytes), cudaMalloc(&c, bytes);
    cudaMemset(a, 1, bytes);
    long long n = (long long)(bytes / 16);
    double moved = 2.0 * bytes;   // read and written
    auto say = [&](const char *what, float ms) {
      printf("%4zu MiB %-34s %.4f ms  %.2f TB/s  %.1f%% of 4.27 TB/s\n", bytes >> 20, what, ms, moved / ms / 1e9,
             100.0 * moved / 4.27e12 / (ms / 1e3));
    };
    say("cudaMemcpy device to device", median_ms([&] { cudaMemcpyAsync(c, a, bytes, cudaMemcpyDeviceToDevice); }));
    int sms = 132;
    for (int per : {4, 8, 16}) {
      char what[64];
      snprintf(what, sizeof what, "kernel U=1, %d x 132 blocks of 512", per);
      say(what, median_ms([&] { copy_words<1><<<per * sms, 512>>>(a, c, n); }));
      snprintf(what, sizeof what, "kernel U=4, %d x 132 blocks of 512", per);
      say(what, median_ms([&] { copy_words<4><<<per * sms, 512>>>(a, c, n); }));
    }
    say("kernel U=1, one word a thread", median_ms([&] { copy_words<1><<<(unsigned)((n + 255) / 256), 256>>>(a, c, n); }));
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(a), cudaFree(c);
  }
}
