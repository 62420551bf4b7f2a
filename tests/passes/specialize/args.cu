template <typename T, int W, int BS = 256>
__global__ void tile_copy(T *dst, const T *src, int n) {
  int i = (blockIdx.x * BS + threadIdx.x) * W;
  for (int k = 0; k < W; k++)
    if (i + k < n) dst[i + k] = src[i + k];
}
