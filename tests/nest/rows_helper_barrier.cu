// expect 1: calls function 'squared' of this file in the row's work, which the row nest cannot move: it calls '__syncthreads'
// A helper hiding a barrier in a row's work is refused with the reason, by the nest and the row nest alike.
__device__ float squared(float v) { __syncthreads(); return v * v; }
__global__ void rowsumsq(const float *x, float *out, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j) s += squared(x[r * n + j]);
    out[r] = s;
  }
}
