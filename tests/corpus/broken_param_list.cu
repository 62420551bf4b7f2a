// expect-error: 6
// Broken on purpose: the kernel's parameter list is missing its ')'.
#include <cuda_runtime.h>

// the kernel below never closes its parameter list
__global__ void negate(float *x, int n {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = -x[i];
}

__global__ void square(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

void launch(float *x, int n)
{
    negate<<<(n + 255) / 256, 256>>>(x, n);
    square<<<(n + 255) / 256, 256>>>(x, n);
}
