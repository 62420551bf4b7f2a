// Warp vote functions: __ballot_sync, __any_sync, __all_sync, with popcount
// to do stream compaction inside a warp.
#include <cuda_runtime.h>

__global__ void compact_positive(const int *in, int *out, int *count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    bool keep = (i < n) && (in[i] > 0);

    unsigned mask = __ballot_sync(0xffffffff, keep);
    int warp_count = __popc(mask);
    int base = 0;
    if (lane == 0 && warp_count > 0)
        base = atomicAdd(count, warp_count);
    base = __shfl_sync(0xffffffff, base, 0);

    if (keep) {
        int offset = __popc(mask & ((1u << lane) - 1));
        out[base + offset] = in[i];
    }
}

__global__ void any_all_flags(const float *x, int *flags, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? x[i] : 0.0f;
    int has_nan = __any_sync(0xffffffff, isnan(v));
    int all_pos = __all_sync(0xffffffff, v > 0.0f);
    if ((threadIdx.x & 31) == 0) {
        int w = i / 32;
        flags[2 * w] = has_nan;
        flags[2 * w + 1] = all_pos;
    }
}

__global__ void first_active_lane(int *leader)
{
    unsigned active = __activemask();
    int first = __ffs(active) - 1;
    if ((int)(threadIdx.x & 31) == first)
        leader[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = first;
}

void run_votes(const int *in, int *out, int *cnt, const float *x, int *flags, int n)
{
    cudaMemset(cnt, 0, sizeof(int));
    compact_positive<<<(n + 255) / 256, 256>>>(in, out, cnt, n);
    any_all_flags<<<(n + 255) / 256, 256>>>(x, flags, n);
    first_active_lane<<<4, 128>>>(out);
}
