// A template over the element type and the block size; sizeof(T) and a cast name T too.
template <typename T, int BS>
__global__ void __launch_bounds__(BS) scale(T *y, const T *x, T a, int n) {
  int i = blockIdx.x * BS + threadIdx.x;
  if (i < n) y[i] = a * x[i] + static_cast<T>(sizeof(T));
}

// krewrite specialize: scale for <float, 128>
template <>
__global__ void __launch_bounds__(128) scale<float, 128>(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n) y[i] = a * x[i] + static_cast<float>(sizeof(float));
}

template __global__ void scale<double, 256>(double *, const double *, double, int);
