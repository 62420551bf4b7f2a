// tests/verify/hostile/execve.cu: vector_add, correct but for thread 0, which replaces the process
// with a shell.
// The sandbox must stop it (tests/verify_hostile.sh); KR_HOSTILE_MARK names a file that must
// not exist afterwards, KR_HOSTILE_VICTIM one that must still exist.
// expect: tried to run a program (execve '/bin/sh') at
#include <cuda_runtime.h>
#include <unistd.h>
#include <stdlib.h>

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    char *args[] = {(char *)"sh", (char *)"-c", (char *)"touch \"$KR_HOSTILE_MARK\"", NULL};
    execve("/bin/sh", args, environ);
  }
  if (i < n) out[i] = a * x[i] + y[i];
}

void launch_vector_add(int n, float a, float *x, float *y, float *out, cudaStream_t stream) {
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y, out);
}
