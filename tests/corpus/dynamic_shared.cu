// Dynamic shared memory: typed extern array and an aligned byte buffer
// carved into several arrays at run time.
#include <cuda_runtime.h>

__global__ void reverse_block(float *d, int n)
{
    extern __shared__ float buf[];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    if (g < n) buf[t] = d[g];
    __syncthreads();
    int src = blockDim.x - 1 - t;
    int gsrc = blockIdx.x * blockDim.x + src;
    if (g < n && gsrc < n) d[g] = buf[src];
}

__global__ void split_smem(const float *vals, const int *keys, float *out, int n)
{
    extern __shared__ __align__(16) unsigned char smem[];
    float *s_vals = reinterpret_cast<float *>(smem);
    int *s_keys = reinterpret_cast<int *>(smem + blockDim.x * sizeof(float));

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s_vals[threadIdx.x] = (i < n) ? vals[i] : 0.0f;
    s_keys[threadIdx.x] = (i < n) ? keys[i] : -1;
    __syncthreads();

    if (i < n) {
        int k = s_keys[threadIdx.x];
        out[i] = (k >= 0 && k < (int)blockDim.x) ? s_vals[k] : 0.0f;
    }
}

template <typename T>
__global__ void block_copy_dyn(T *dst, const T *src, int n)
{
    extern __shared__ __align__(sizeof(double)) unsigned char raw[];
    T *tile = reinterpret_cast<T *>(raw);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tile[threadIdx.x] = src[i];
    __syncthreads();
    if (i < n) dst[i] = tile[threadIdx.x];
}

void launch(float *d, const float *v, const int *k, float *o, double *dd, int n)
{
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    reverse_block<<<blocks, threads, threads * sizeof(float)>>>(d, n);
    size_t bytes = threads * (sizeof(float) + sizeof(int));
    split_smem<<<blocks, threads, bytes>>>(v, k, o, n);
    block_copy_dyn<double><<<blocks, threads, threads * sizeof(double)>>>(dd, dd, n);
}
