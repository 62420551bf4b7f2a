// tests/verify/hostile/ctor_loop.cu: a correct vector_add, but a global constructor spins forever
// as the module loads.
// The sandbox must stop it (tests/verify_hostile.sh); KR_HOSTILE_MARK names a file that must
// not exist afterwards, KR_HOSTILE_VICTIM one that must still exist.
// expect: the code that runs when the module is loaded (a global constructor) tried to use more than 5 s of CPU time (the sandbox's limit) at
#include <cuda_runtime.h>

__attribute__((constructor)) static void spin() {
  for (volatile unsigned long k = 0;; k++) {}
}
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

void launch_vector_add(int n, float a, float *x, float *y, float *out, cudaStream_t stream) {
  vector_add<<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, y, out);
}
