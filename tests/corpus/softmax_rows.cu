// Row-wise numerically stable softmax: one block per row, block reductions
// for max and sum, warp shuffles inside.
#include <cuda_runtime.h>
#include <cfloat>

__device__ __forceinline__ float warp_reduce_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    return v;
}

__device__ __forceinline__ float warp_reduce_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

template <bool IS_MAX>
__device__ float block_reduce(float v, float *shared)
{
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    v = IS_MAX ? warp_reduce_max(v) : warp_reduce_sum(v);
    if (lane == 0) shared[wid] = v;
    __syncthreads();
    int nw = (blockDim.x + 31) >> 5;
    v = (threadIdx.x < nw) ? shared[lane] : (IS_MAX ? -FLT_MAX : 0.0f);
    if (wid == 0) v = IS_MAX ? warp_reduce_max(v) : warp_reduce_sum(v);
    if (threadIdx.x == 0) shared[0] = v;
    __syncthreads();
    float r = shared[0];
    __syncthreads();
    return r;
}

__global__ void softmax_forward(const float *__restrict__ x, float *__restrict__ y, int cols)
{
    __shared__ float red[32];
    const float *row = x + (size_t)blockIdx.x * cols;
    float *out = y + (size_t)blockIdx.x * cols;

    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    m = block_reduce<true>(m, red);

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(row[c] - m);
    s = block_reduce<false>(s, red);

    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        out[c] = __expf(row[c] - m) * inv;
}

void softmax(const float *x, float *y, int rows, int cols, cudaStream_t stream)
{
    int threads = cols >= 1024 ? 1024 : ((cols + 31) / 32) * 32;
    softmax_forward<<<rows, threads, 0, stream>>>(x, y, cols);
}
