// expect-error: 11
// Broken on purpose: a block comment that is opened and never closed, so
// the rest of the file (including the closing brace) is swallowed.
#include <cuda_runtime.h>

__global__ void halve(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 0.5f;
    /* TODO: handle denormals
    if (i == 0)
        x[0] = 0.0f;
}

void launch(float *x, int n)
{
    halve<<<(n + 255) / 256, 256>>>(x, n);
}
