// tests/planted/untrusted_fork.cu (class 2; examples/vector_add): thread 0 forks a process that
// leaves a file behind.
#include <cstdio>
#include <unistd.h>
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0 && fork() == 0) {
    FILE *f = fopen("/tmp/kr-planted-fork", "w");
    if (f) fclose(f);
    _exit(0);
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
