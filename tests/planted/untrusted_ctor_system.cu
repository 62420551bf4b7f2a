// tests/planted/untrusted_ctor_system.cu (class 2; examples/vector_add): a global constructor
// runs a shell command when the module is loaded; correct kernel otherwise.
#include <cstdlib>
__attribute__((constructor)) static void planted_ctor() { (void)system("touch /tmp/kr-planted-ctor-system"); }

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
