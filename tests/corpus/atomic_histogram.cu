// Histogram with shared-memory privatization and several atomic operations.
#include <cuda_runtime.h>

#define NUM_BINS 256

__global__ void histogram_shared(const unsigned char *data, unsigned int *hist, size_t n)
{
    __shared__ unsigned int local[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();

    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}

__global__ void atomic_minmax(const int *v, int *mn, int *mx, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMin(mn, v[i]);
        atomicMax(mx, v[i]);
    }
}

__device__ float atomic_max_float(float *addr, float val)
{
    int *iaddr = reinterpret_cast<int *>(addr);
    int old = *iaddr, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(iaddr, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void max_reduce(const float *x, float *result, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_max_float(result, x[i]);
}

__global__ void ticket(unsigned int *counter, unsigned int *order, int *lock)
{
    unsigned int t = atomicInc(counter, 0xffffffffu);
    order[blockIdx.x] = t;
    atomicExch(lock, 0);
    atomicXor(lock, 1);
}

void histogram(const unsigned char *d, unsigned int *h, size_t n)
{
    cudaMemset(h, 0, NUM_BINS * sizeof(unsigned int));
    histogram_shared<<<120, 256>>>(d, h, n);
}
