// Only __device__ functions and device variables — no __global__ kernels.
// Meant to be compiled with -rdc and linked against kernels elsewhere.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__device__ int g_error_count;
__device__ float g_scale = 1.0f;

__device__ float dot3(const float3 &a, const float3 &b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

__device__ float3 cross3(float3 a, float3 b)
{
    return make_float3(a.y * b.z - a.z * b.y,
                       a.z * b.x - a.x * b.z,
                       a.x * b.y - a.y * b.x);
}

__device__ __forceinline__ float length3(float3 v)
{
    return sqrtf(dot3(v, v));
}

__device__ float3 normalize3(float3 v)
{
    float inv = rsqrtf(fmaxf(dot3(v, v), 1e-20f));
    return make_float3(v.x * inv, v.y * inv, v.z * inv);
}

__device__ void report_error()
{
    atomicAdd(&g_error_count, 1);
}

__device__ half scaled_half(float x)
{
    return __float2half(x * g_scale);
}

template <typename T>
__device__ T warp_broadcast(T v, int src)
{
    return __shfl_sync(0xffffffffu, v, src);
}

template __device__ float warp_broadcast<float>(float, int);
