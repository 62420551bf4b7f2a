// tests/verify/hostile/ctor_system.cu: a correct vector_add, but a global constructor runs a shell
// command as the module loads.
// The sandbox must stop it (tests/verify_hostile.sh); KR_HOSTILE_MARK names a file that must
// not exist afterwards, KR_HOSTILE_VICTIM one that must still exist.
// expect: the code that runs when the module is loaded (a global constructor) tried to run a program (clone with CLONE_VFORK
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void pwn() {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "touch %s", getenv("KR_HOSTILE_MARK"));
  system(cmd);
}
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

void launch_vector_add(int n, float a, float *x, float *y, float *out, cudaStream_t stream) {
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y, out);
}
