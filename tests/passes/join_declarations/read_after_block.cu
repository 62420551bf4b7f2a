// r is assigned in a block and read after it: its declaration cannot move into the block.
__global__ void blk(const float *x, float *y, int n) {
  int r;
  {
    r = n - 1;
  }
  y[r] = x[r];
}
