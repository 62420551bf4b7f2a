// expect 0: accumulator float s (op +, init 0.0f)
// A pure helper of the file in a row's work is read as an expression (it only computes a value).
__device__ float squared(float v) { return v * v; }
__global__ void rowsumsq(const float *x, float *out, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < n; ++j) s += squared(x[r * n + j]);
    out[r] = s;
  }
}
