// Cooperative groups: thread_block, tiled_partition, cg::reduce and a grid sync.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__device__ float tile_sum(cg::thread_block_tile<32> tile, float v)
{
    for (int i = tile.size() / 2; i > 0; i /= 2)
        v += tile.shfl_down(v, i);
    return v;
}

__global__ void cg_block_reduce(const float *in, float *out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    float s = tile_sum(warp, v);
    if (warp.thread_rank() == 0)
        atomicAdd(out, s);
    block.sync();
}

__global__ void cg_builtin_reduce(const int *in, int *out, int n)
{
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = (i < n) ? in[i] : 0;
    int s = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0)
        atomicAdd(out, s);
}

__global__ void cg_grid_two_phase(float *data, float *partial, int n)
{
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < n; i += grid.size())
        data[i] *= 2.0f;
    grid.sync();
    if (grid.thread_rank() == 0) {
        float s = 0.0f;
        for (int i = 0; i < n; ++i) s += data[i];
        partial[0] = s;
    }
}

void launch_cg(const float *in, float *out, const int *iin, int *iout, float *data, int n)
{
    cg_block_reduce<<<(n + 255) / 256, 256>>>(in, out, n);
    cg_builtin_reduce<<<(n + 255) / 256, 256>>>(iin, iout, n);

    void *args[] = {&data, &out, &n};
    cudaLaunchCooperativeKernel((void *)cg_grid_two_phase, dim3(32), dim3(256), args, 0, 0);
}
