// tests/verify/hostile/malloc.cu: vector_add, correct but for thread 0, which allocates 64 GiB at
// once.
// The sandbox must stop it (tests/verify_hostile.sh); KR_HOSTILE_MARK names a file that must
// not exist afterwards, KR_HOSTILE_VICTIM one that must still exist.
// expect: tried to map 65536 MiB of memory at once
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    void *(*volatile get)(size_t) = malloc;  /* not a call the compiler may leave out */
    char *p = (char *)get(64ull << 30);
    if (p) memset(p, 1, 64ull << 30);
  }
  if (i < n) out[i] = a * x[i] + y[i];
}

void launch_vector_add(int n, float a, float *x, float *y, float *out, cudaStream_t stream) {
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y, out);
}
