// expect-error: 9
// Broken on purpose: missing semicolon after a statement inside a kernel.
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = a * x[i]
        y[i] = t + y[i];
    }
}

void launch(int n, float a, const float *x, float *y)
{
    saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
