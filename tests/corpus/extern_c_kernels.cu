// extern "C" kernels: a single declaration and a linkage block.
// Names are unmangled so they can be looked up with cuModuleGetFunction.
#include <cuda_runtime.h>

extern "C" __global__ void vec_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" {

__global__ void vec_sub(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] - b[i];
}

__global__ void __launch_bounds__(128) vec_mul(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i];
}

__device__ float clampf(float x, float lo, float hi)
{
    return fminf(fmaxf(x, lo), hi);
}

__global__ void vec_clamp(float *c, float lo, float hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = clampf(c[i], lo, hi);
}

} // extern "C"

extern "C" void launch_all(const float *a, const float *b, float *c, int n)
{
    dim3 block(128);
    dim3 grid((n + block.x - 1) / block.x);
    vec_add<<<grid, block>>>(a, b, c, n);
    vec_sub<<<grid, block>>>(a, b, c, n);
    vec_mul<<<grid, block>>>(a, b, c, n);
    vec_clamp<<<grid, block>>>(c, -1.0f, 1.0f, n);
}
