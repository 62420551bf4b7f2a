// A copy over a fixed tile whose initializer also declares the tile's base: copying the body with
// `k` fixed would leave `base` undeclared.
#define TILE 8

__global__ void copy_tiles(const int *in, int *out, int ntiles) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < ntiles) {
    for (int k = 0, base = t * TILE; k < TILE; ++k)
      out[base + k] = in[base + TILE - 1 - k];
  }
}
