// expect-error: 10
// Broken on purpose: a stray closing parenthesis in an expression.
#include <cuda_runtime.h>

__global__ void dist(const float2 *p, float *d, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 v = p[i];
    d[i] = sqrtf(v.x * v.x + v.y * v.y));
}

void launch(const float2 *p, float *d, int n)
{
    dist<<<(n + 127) / 128, 128>>>(p, d, n);
}
