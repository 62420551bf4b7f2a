// A template over the element type and the block size; sizeof(T) and a cast name T too.
template <typename T, int BS>
__global__ void __launch_bounds__(BS) scale(T *y, const T *x, T a, int n) {
  int i = blockIdx.x * BS + threadIdx.x;
  if (i < n) y[i] = a * x[i] + static_cast<T>(sizeof(T));
}

template __global__ void scale<double, 256>(double *, const double *, double, int);
