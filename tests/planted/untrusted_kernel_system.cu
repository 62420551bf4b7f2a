// tests/planted/untrusted_kernel_system.cu (class 2; examples/vector_add): thread 0 of the kernel
// runs a shell command.
#include <cstdlib>
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) (void)system("touch /tmp/kr-planted-kernel-system");
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
