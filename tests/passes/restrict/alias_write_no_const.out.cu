// x is written through an alias with an offset, so it gets __restrict__ but not const; w is only
// read but flows into a non-const alias, so const would not compile: restrict only as well.
__global__ void shift(float *__restrict__ x, float *__restrict__ w, int n) {
  float *p = x + 1;
  float *q = w;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) p[i] = q[i] * 2.0f;
}
