// The kernel already has a variable named kr_v, and the file a macro named kr_e that the kernel
// does not use (only a whole-file check sees it): the vector index and the tail variable the
// pass writes take the next free names, kr_v_1 and kr_e_1. A kr_x in a comment captures
// nothing, so the vector local of x is still kr_x.
#define kr_e 0
__global__ void scale(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int kr_v = 1;
  if (i < n) y[i] = 2.0f * x[i] + kr_v;
}
