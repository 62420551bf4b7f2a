// A definition under a condition the file cannot settle (which architecture it is compiled for):
// which one a kernel calls depends on the build, so neither is written out.
#if __CUDA_ARCH__ >= 800
#define LOAD(p, i) __ldg(&(p)[i])
#else
#define LOAD(p, i) (p)[i]
#endif
__global__ void k(const float *x, float *y, int n) {
  int i = threadIdx.x;
  if (i < n) y[i] = LOAD(x, i);
}
