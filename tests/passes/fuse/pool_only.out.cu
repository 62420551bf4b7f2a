// A batched product and a 2 x 2 max-pool of it that starts from -INFINITY (the pool fuses: its window
// read digit by digit against the product's store).
#include <cuda_runtime.h>

// krewrite fuse: the atomic maximum of a float over all-ones bytes (a NaN): a number's bits order as ints when it
// is not negative, in reverse as unsigned ints when it is, and all-ones is below both
__device__ __forceinline__ void kr_atomic_max_f32(float *a, float v) {
  if (!signbit(v)) atomicMax(reinterpret_cast<int *>(a), __float_as_int(v));
  else atomicMin(reinterpret_cast<unsigned int *>(a), __float_as_uint(v));
}

// krewrite fuse: fills a buffer of n elements of `size` bytes with all-ones bytes before the fused kernel's launch
// (its launch change's fills), an element a thread (a 4-byte element in one store)
__global__ void kr_fill_ones(unsigned char *p, long long n, int size) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    if (size == 4) reinterpret_cast<unsigned int *>(p)[i] = 0xffffffffu;
    else for (int b = 0; b < size; b++) p[i * size + b] = 0xff;
  }
}

// krewrite fuse: the outputs of pool2 whose windows hold the element of t at the digits kr_d0 (outermost), kr_d1, … of its index, each folded into y by an atomic maximum
__device__ __forceinline__ void kr_fuse_only_pool2(float kr_v, int kr_d0, int kr_d1, int kr_d2, int BB, int M, int N, int MO, int NO, float *y) {
  if (kr_v != kr_v) return;   // fmaxf passes over a NaN
  const int bb = kr_d0;
  for (int i = 0; i < 2; i++) {
    if (kr_d1 - i < 0 || (kr_d1 - i) % 2 != 0) continue;
    const int mo = (kr_d1 - i) / 2;
    for (int j = 0; j < 2; j++) {
      if (kr_d2 - j < 0 || (kr_d2 - j) % 2 != 0) continue;
      const int no = (kr_d2 - j) / 2;
      const int idx = no + NO * mo + MO * NO * bb;
      if (idx < BB * MO * NO && no < NO && mo < MO) kr_atomic_max_f32(&y[no + NO * mo + MO * NO * bb], kr_v);
    }
  }
}

__global__ void bmm(int B, int M, int N, int K, const float *a, const float *b, float *t, int BB, int MO, int NO, float *y) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y;
  int bb = blockIdx.z * blockDim.z + threadIdx.z;
  if (n >= N || m >= M || bb >= B) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += a[(bb * M + m) * K + k] * b[k * N + n];
  t[(bb * M + m) * N + n] = acc;
  // krewrite fuse: pool2, the outputs whose windows hold this element
  kr_fuse_only_pool2(t[((bb * M + m) * N + n)], bb, m, n, BB, M, N, MO, NO, y);
}

__global__ void pool2(int BB, int M, int N, int MO, int NO, const float *t, float *y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= BB * MO * NO) return;
  int no = idx % NO;
  int mo = (idx / NO) % MO;
  int bb = idx / (NO * MO);
  float best = -INFINITY;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      best = fmaxf(best, t[(bb * M + 2 * mo + i) * N + 2 * no + j]);
  y[idx] = best;
}
