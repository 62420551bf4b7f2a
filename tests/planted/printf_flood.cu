// tests/planted/printf_flood.cu (class 9; examples/vector_add): correct results, but at n = 4099
// every thread prints about 300 bytes, 1.2 MiB a launch: more than the GPU's 1 MiB printf FIFO.
#include <cstdio>
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = a * x[i] + y[i];
    if (n == 4099)
      printf("element %6d: %-270s|\n", i, "debug output that nobody will read, padded to a long line");
  }
}
