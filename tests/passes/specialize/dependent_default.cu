// The block size's default depends on the element type.
template <typename T, int BS = 128 / sizeof(T)>
__global__ void fill(T *y, int n) {
  int i = blockIdx.x * BS + threadIdx.x;
  if (i < n) y[i] = T(0);
}
