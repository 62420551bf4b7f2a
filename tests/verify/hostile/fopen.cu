// tests/verify/hostile/fopen.cu: vector_add, correct but for thread 0, which writes a file outside
// its private folder.
// The sandbox must stop it (tests/verify_hostile.sh); KR_HOSTILE_MARK names a file that must
// not exist afterwards, KR_HOSTILE_VICTIM one that must still exist.
// expect: tried to write the file '
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    FILE *f = fopen(getenv("KR_HOSTILE_MARK"), "w");
    if (f) fclose(f);
  }
  if (i < n) out[i] = a * x[i] + y[i];
}

void launch_vector_add(int n, float a, float *x, float *y, float *out, cudaStream_t stream) {
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y, out);
}
