// Asynchronous global->shared copies with the cuda_pipeline primitives,
// double-buffered over chunks of the input.
#include <cuda_runtime.h>
#include <cuda_pipeline.h>

constexpr int CHUNK = 256;

__global__ void pipelined_scale(const float4 *__restrict__ in, float4 *__restrict__ out,
                                int chunks, float s)
{
    __shared__ __align__(16) float4 buf[2][CHUNK];
    int t = threadIdx.x;
    int base = blockIdx.x * chunks * CHUNK;

    __pipeline_memcpy_async(&buf[0][t], &in[base + t], sizeof(float4));
    __pipeline_commit();

    for (int c = 0; c < chunks; ++c) {
        int cur = c & 1;
        if (c + 1 < chunks) {
            __pipeline_memcpy_async(&buf[cur ^ 1][t], &in[base + (c + 1) * CHUNK + t], sizeof(float4));
            __pipeline_commit();
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        float4 v = buf[cur][t];
        v.x *= s; v.y *= s; v.z *= s; v.w *= s;
        out[base + c * CHUNK + t] = v;
        __syncthreads();
    }
}

void run_pipeline(const float4 *in, float4 *out, int n4, float s)
{
    int chunks = 4;
    int blocks = n4 / (chunks * CHUNK);
    if (blocks > 0)
        pipelined_scale<<<blocks, CHUNK>>>(in, out, chunks, s);
}
