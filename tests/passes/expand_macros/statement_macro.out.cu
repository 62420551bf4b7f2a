// A statement-like macro, and a directive line in the body that the pass leaves alone.
#define SWAP(a, b) { float t_ = a; a = b; b = t_; }

__global__ void k(float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float a = x[i], b = y[i];
#pragma unroll
    for (int r = 0; r < 3; r++) { float t_ = a; a = b; b = t_; };
    x[i] = a, y[i] = b;
  }
}
