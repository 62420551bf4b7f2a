template <typename T, int W, int BS = 256>
__global__ void tile_copy(T *dst, const T *src, int n) {
  int i = (blockIdx.x * BS + threadIdx.x) * W;
  for (int k = 0; k < W; k++)
    if (i + k < n) dst[i + k] = src[i + k];
}

// krewrite specialize: tile_copy for <float, 2 * 32, 256>
template <>
__global__ void tile_copy<float, 2 * 32, 256>(float *dst, const float *src, int n) {
  int i = (blockIdx.x * 256 + threadIdx.x) * (2 * 32);
  for (int k = 0; k < (2 * 32); k++)
    if (i + k < n) dst[i + k] = src[i + k];
}
