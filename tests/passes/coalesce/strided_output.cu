// Scales a matrix into a strided destination (every other column of a wider buffer): the written
// index moves by 2 along 'c' and by ld along 'r', so neither thread index runs along contiguous
// elements and swapping x and y would not make a warp's stores neighbours.
#define LD 1024

__global__ void scale_into_even_cols(int rows, int cols, float s, const float *src, float *dst) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) {
    dst[r * LD + 2 * c] = s * src[r * cols + c];
  }
}
