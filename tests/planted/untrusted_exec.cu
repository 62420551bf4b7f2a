// tests/planted/untrusted_exec.cu (class 2; examples/vector_add): thread 0 replaces the process
// with a program.
#include <unistd.h>
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    execl("/usr/bin/touch", "touch", "/tmp/kr-planted-exec", (char *)0);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
