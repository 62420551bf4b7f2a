// Kernels for tests/unit/test_emu.c: half, bfloat16, WMMA, async copies and cooperative groups on
// the CPU emulator.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <mma.h>

namespace cg = cooperative_groups;
using namespace nvcuda;

// y = a*x + y on pairs of halves; then out[i] = the two results as floats.
__global__ void half2_axpy(int n2, float a, const __half2 *x, __half2 *y, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        __half2 r = __hfma2(__float2half2_rn(a), x[i], y[i]);
        y[i] = r;
        out[2 * i] = __low2float(r);
        out[2 * i + 1] = __high2float(r);
    }
}

__global__ void bf16_ops(int n, const float *a, const float *b, float *sum, float *prod)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * i + 1 < n) {
        __nv_bfloat162 x = __floats2bfloat162_rn(a[2 * i], a[2 * i + 1]);
        __nv_bfloat162 y = __floats2bfloat162_rn(b[2 * i], b[2 * i + 1]);
        __nv_bfloat162 s = __hadd2(x, y), p = __hmul2(x, y);
        sum[2 * i] = __low2float(s);
        sum[2 * i + 1] = __high2float(s);
        prod[2 * i] = __bfloat162float(__low2bfloat16(p));
        prod[2 * i + 1] = __bfloat162float(__high2bfloat16(p));
    }
}

// The bit patterns of float -> half and float -> bfloat16 conversions.
__global__ void conversions(int n, const float *x, unsigned short *h, unsigned short *bf)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        h[i] = __half_as_ushort(__float2half(x[i]));
        bf[i] = __bfloat16_as_ushort(__float2bfloat16(x[i]));
    }
}

// C (16x16, row-major float) = A (16x16 row-major half) * B (16x16 col-major half), one warp.
__global__ void wmma_tile(const half *a, const half *b, float *c)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    for (int i = 0; i < fc.num_elements; i++)
        fc.x[i] *= 2.0f;
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

// Double-buffered copies of `chunks` chunks of blockDim.x floats: out = 3 * in.
// With `wait_all` false the kernel waits for one stage too few: a bug the emulator exposes.
__global__ void pipelined_scale(const float *in, float *out, int chunks, int wait_all)
{
    __shared__ float buf[2][128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&buf[0][t], &in[t], sizeof(float));
    __pipeline_commit();
    for (int c = 0; c < chunks; ++c) {
        if (c + 1 < chunks) {
            __pipeline_memcpy_async(&buf[(c + 1) & 1][t], &in[(c + 1) * blockDim.x + t], sizeof(float));
            __pipeline_commit();
            __pipeline_wait_prior(wait_all ? 1 : 2);
        } else {
            __pipeline_wait_prior(wait_all ? 0 : 1);
        }
        __syncthreads();
        out[c * blockDim.x + t] = 3.0f * buf[c & 1][t];
        __syncthreads();
    }
}

// cp.async's zero fill: thread t copies in[t] when t < n; past n it reads no byte (source size 0,
// its address in + t outside the buffer) and the element is zero-filled, written all the same.
__global__ void zfill_copy(const float *in, float *out, int n)
{
    __shared__ float buf[128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&buf[t], &in[t], sizeof(float), t < n ? 0 : sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = buf[t] + 1.0f;
}

// Sums of 16-thread tiles with cooperative groups.
__global__ void tile_sums(const int *x, int *sums)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int i = block.group_index().x * block.size() + block.thread_rank();
    int s = cg::reduce(tile, x[i], cg::plus<int>());
    if (tile.thread_rank() == 0)
        sums[i / 16] = s;
    block.sync();
}
