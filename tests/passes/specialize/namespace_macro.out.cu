// A template in a namespace, specialized for a block size given through a macro; a text pass then
// rewrites the specialization by the handle's name.
#define TILE 16
namespace ops {
template <typename T, int BS>
__global__ void axpy(T *y, const T *x, T a, int n) {
  int i = blockIdx.x * BS + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// krewrite specialize: axpy for <float, TILE * 8>
template <>
__global__ void axpy<float, TILE * 8>(float *__restrict__ y, const float *__restrict__ x, float a, int n) {
  int i = blockIdx.x * (TILE * 8) + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
}
