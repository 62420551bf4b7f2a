// Packed half-precision arithmetic with half2 and conversions back to float.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

__global__ void half2_axpy(int n2, __half2 alpha, const __half2 *x, __half2 *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        y[i] = __hfma2(alpha, x[i], y[i]);
    }
}

__global__ void half2_mul_add(const half2 *a, const half2 *b, half2 *c, int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        half2 p = __hmul2(a[i], b[i]);
        c[i] = __hadd2(p, c[i]);
    }
}

__global__ void half_to_float_sum(const half *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __half2float(in[i]);
        atomicAdd(out, v);
    }
}

__global__ void float_to_half2(const float *in, half2 *out, int n2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        float lo = in[2 * i];
        float hi = in[2 * i + 1];
        out[i] = __floats2half2_rn(lo, hi);
        float check = __low2float(out[i]) + __high2float(out[i]);
        (void)check;
    }
}

__global__ void half_relu(half *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const half zero = __float2half(0.0f);
    if (i < n && __hlt(x[i], zero))
        x[i] = zero;
}

void run(half2 *x, half2 *y, half *h, float *acc, int n)
{
    int n2 = n / 2;
    half2 alpha = __float2half2_rn(0.25f);
    half2_axpy<<<(n2 + 255) / 256, 256>>>(n2, alpha, x, y);
    half2_mul_add<<<(n2 + 255) / 256, 256>>>(x, y, y, n2);
    half_to_float_sum<<<(n + 255) / 256, 256>>>(h, acc, n);
    half_relu<<<(n + 255) / 256, 256>>>(h, n);
}
