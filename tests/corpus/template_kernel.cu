// Templated kernels: type and non-type template parameters,
// explicit instantiation, and launches with explicit template arguments.
#include <cuda_runtime.h>
#include <cstdio>

template <typename T, int BLOCK>
__global__ void scale_kernel(T *out, const T *in, T alpha, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) {
        out[i] = alpha * in[i];
    }
}

template <typename T, int BLOCK, int ITEMS>
__global__ void copy_items(T *__restrict__ dst, const T *__restrict__ src, int n)
{
    int base = (blockIdx.x * BLOCK + threadIdx.x) * ITEMS;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int idx = base + k;
        if (idx < n)
            dst[idx] = src[idx];
    }
}

template <typename T>
__global__ void fill(T *p, T value, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = value;
}

// explicit instantiations
template __global__ void scale_kernel<float, 128>(float *, const float *, float, int);
template __global__ void scale_kernel<double, 256>(double *, const double *, double, int);
template __global__ void fill<int>(int *, int, size_t);

template <typename T, int BLOCK>
void launch_scale(T *out, const T *in, T alpha, int n, cudaStream_t s)
{
    int grid = (n + BLOCK - 1) / BLOCK;
    scale_kernel<T, BLOCK><<<grid, BLOCK, 0, s>>>(out, in, alpha, n);
}

int main()
{
    const int n = 1 << 16;
    float *a = nullptr, *b = nullptr;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));

    fill<float><<<(n + 255) / 256, 256>>>(a, 1.0f, n);
    scale_kernel<float, 128><<<n / 128, 128>>>(b, a, 2.0f, n);
    copy_items<float, 64, 4><<<(n + 255) / 256, 64>>>(a, b, n);
    launch_scale<float, 256>(a, b, 0.5f, n, 0);

    cudaError_t err = cudaDeviceSynchronize();
    printf("status: %s\n", cudaGetErrorString(err));
    cudaFree(a);
    cudaFree(b);
    return 0;
}
