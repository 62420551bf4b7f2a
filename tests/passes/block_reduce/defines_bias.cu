// Sizes from #define, an accumulator that starts from bias[row], acc -= e.
#define ROWS 1000
#define COLS 513
__global__ void rowdiff(const float *x, const float *bias, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < ROWS) {
    float s = bias[row];
    for (int j = 0; j < COLS; j++) {
      s -= 2.0f * x[row * COLS + j];
    }
    y[row] = s;
  }
}
