// Thread-per-row dot of each row with v (a matvec), warp per row with 128 threads a block.
__global__ void matvec2(const float *A, const float *v, float *out, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int j = 0; j < cols; j++) {
      acc += A[r * cols + j] * v[j];
    }
    out[r] = acc;
  }
}
