// An explicit specialization of a template kernel (mm<float>): the nest reads it, and the generic
// template and its instantiations stay as they are.
#include <cuda_runtime.h>

template <typename T>
__global__ void mm(const T *A, const T *B, T *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    T s = 0;
    for (int k = 0; k < K; k++) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}

template <>
__global__ void mm<float>(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; k++) s += A[row * K + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}

// The double instantiation runs the generic template.
template __global__ void mm<double>(const double *, const double *, double *, int, int, int);
