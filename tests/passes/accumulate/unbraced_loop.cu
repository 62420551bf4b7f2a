// A row-times-matrix product accumulated straight into y; the loop is the unbraced body of the
// guard, so there is no block to declare a register accumulator in.
#define COLS 256

__global__ void vecmat(int rows, const float *x, const float *W, float *y) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < COLS)
    for (int r = 0; r < rows; ++r) y[c] += x[r] * W[r * COLS + c];
}
