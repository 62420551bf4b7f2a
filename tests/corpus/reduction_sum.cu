// Classic parallel sum reduction: interleaved-address tree in shared memory,
// then a two-pass driver that reduces partial sums on the device.
#include <cuda_runtime.h>

template <unsigned int BLOCK>
__device__ void warp_unrolled(volatile float *s, unsigned int tid)
{
    if (BLOCK >= 64) s[tid] += s[tid + 32];
    if (BLOCK >= 32) s[tid] += s[tid + 16];
    if (BLOCK >= 16) s[tid] += s[tid + 8];
    if (BLOCK >= 8) s[tid] += s[tid + 4];
    if (BLOCK >= 4) s[tid] += s[tid + 2];
    if (BLOCK >= 2) s[tid] += s[tid + 1];
}

template <unsigned int BLOCK>
__global__ void reduce_sum(const float *__restrict__ in, float *__restrict__ out, unsigned int n)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (BLOCK * 2) + tid;
    unsigned int grid_size = BLOCK * 2 * gridDim.x;

    float sum = 0.0f;
    while (i < n) {
        sum += in[i];
        if (i + BLOCK < n) sum += in[i + BLOCK];
        i += grid_size;
    }
    sdata[tid] = sum;
    __syncthreads();

    for (unsigned int s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) warp_unrolled<BLOCK>(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

float device_sum(const float *d_in, unsigned int n)
{
    const unsigned int threads = 256;
    unsigned int blocks = (n + threads * 2 - 1) / (threads * 2);
    if (blocks > 1024) blocks = 1024;

    float *d_partial = nullptr, *d_total = nullptr;
    cudaMalloc(&d_partial, blocks * sizeof(float));
    cudaMalloc(&d_total, sizeof(float));

    reduce_sum<threads><<<blocks, threads>>>(d_in, d_partial, n);
    reduce_sum<threads><<<1, threads>>>(d_partial, d_total, blocks);

    float h_total = 0.0f;
    cudaMemcpy(&h_total, d_total, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_partial);
    cudaFree(d_total);
    return h_total;
}
