// expect-error: 12
// Broken on purpose: a line of garbage pasted into the middle of a kernel.
#include <cuda_runtime.h>

__global__ void clamp_kernel(float *x, float lo, float hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    v = fmaxf(v, lo);
    @@ -12,7 +12,8 @@ merge conflict leftovers ]]] }{ ###
    v = fminf(v, hi);
    x[i] = v;
}

void launch(float *x, int n)
{
    clamp_kernel<<<(n + 255) / 256, 256>>>(x, -1.0f, 1.0f, n);
}
