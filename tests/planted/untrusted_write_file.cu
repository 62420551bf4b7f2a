// tests/planted/untrusted_write_file.cu (class 2; examples/vector_add): thread 0 writes a file
// outside any private folder.
#include <cstdio>
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    FILE *f = fopen("/tmp/kr-planted-write", "w");
    if (f) fputs("written by a candidate\n", f), fclose(f);
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
