// Kernels for tests/unit/test_emu.c: the inline PTX the CPU emulator runs (mma.sync, ldmatrix,
// cvt.rna.tf32.f32), written as CUDA code for the GPU writes it: every asm here is real PTX
// (nvcc -arch=sm_90 -cubin compiles this file). One warp per block. The tests name lines of this
// file: keep the marked lines where they are or update the tests.
#include <cuda_runtime.h>
#include <cstdint>

// ---- Helpers, as a kernel library writes them ----------------------------------------------------

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "l"(__cvta_generic_to_shared(row)));
}

// The qualifiers in CUTLASS's order, and a 32-bit shared address.
__device__ __forceinline__ void ldmatrix_x4_r(uint32_t (&r)[4], const void *row)
{
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared::cta.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], const void *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "l"(__cvta_generic_to_shared(row)));
}

__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], const void *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "l"(__cvta_generic_to_shared(row)));
}

// ---- mma.sync ------------------------------------------------------------------------------------

// d (16x8) = a (16x8, row-major) * b (8x8, b[k * 8 + n]) + c, on fragments read straight from
// global memory; a and b hold fp32 bits whose low 13 the tensor cores drop.
__global__ void mma_tf32(const float *a, const float *b, const float *c, float *d)
{
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    uint32_t a0 = __float_as_uint(a[g * 8 + t]), a1 = __float_as_uint(a[(g + 8) * 8 + t]);
    uint32_t a2 = __float_as_uint(a[g * 8 + t + 4]), a3 = __float_as_uint(a[(g + 8) * 8 + t + 4]);
    uint32_t b0 = __float_as_uint(b[t * 8 + g]), b1 = __float_as_uint(b[(t + 4) * 8 + g]);
    float c0 = c[g * 8 + 2 * t], c1 = c[g * 8 + 2 * t + 1];
    float c2 = c[(g + 8) * 8 + 2 * t], c3 = c[(g + 8) * 8 + 2 * t + 1];
    float d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),
                   "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    d[g * 8 + 2 * t] = d0;
    d[g * 8 + 2 * t + 1] = d1;
    d[(g + 8) * 8 + 2 * t] = d2;
    d[(g + 8) * 8 + 2 * t + 1] = d3;
}

// d (16x8) = a (16x16, row-major) * b + c in bf16 (b_kn: b[k * 8 + n], else b[n * 16 + k]) or f16:
// the tiles staged in shared memory, fragments through ldmatrix, C in the accumulators ("+f").
template <bool BF16>
__device__ void mma_k16(const uint16_t *a, const uint16_t *b, const float *c, float *d, bool b_kn)
{
    __shared__ __align__(16) uint16_t a_tile[16 * 16];
    __shared__ __align__(16) uint16_t b_tile[16 * 8];
    int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    for (int i = lane; i < 16 * 16; i += 32)
        a_tile[i] = a[i];
    for (int i = lane; i < 16 * 8; i += 32)
        b_tile[i] = b[i];
    __syncwarp();
    // A: the four 8x8 quarters (rows 0-7, 8-15) x (columns 0-7, 8-15), column-quarter major.
    uint32_t fa[4], fb[2];
    if (BF16)
        ldmatrix_x4(fa, &a_tile[(lane % 16) * 16 + (lane / 16) * 8]);
    else
        ldmatrix_x4_r(fa, &a_tile[(lane % 16) * 16 + (lane / 16) * 8]);
    // B by k rows (k 0-7, then 8-15), transposed; or by n rows, k 0-7 then k 8-15.
    if (b_kn)
        ldmatrix_x2_trans(fb, &b_tile[(lane % 16) * 8]);
    else
        ldmatrix_x2(fb, &b_tile[(lane % 8) * 16 + (lane / 8 % 2) * 8]);
    float acc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t], c[(g + 8) * 8 + 2 * t + 1]};
    if (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
            : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]) : "memory");
    d[g * 8 + 2 * t] = acc[0];
    d[g * 8 + 2 * t + 1] = acc[1];
    d[(g + 8) * 8 + 2 * t] = acc[2];
    d[(g + 8) * 8 + 2 * t + 1] = acc[3];
}

__global__ void mma_bf16(const uint16_t *a, const uint16_t *b, const float *c, float *d, int b_kn)
{
    mma_k16<true>(a, b, c, d, b_kn != 0);
}

__global__ void mma_f16(const uint16_t *a, const uint16_t *b, const float *c, float *d, int b_kn)
{
    mma_k16<false>(a, b, c, d, b_kn != 0);
}

// Only half the warp reaches the mma: it is .aligned, so the emulator stops the launch.
__global__ void mma_half_warp(float *d)
{
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    uint32_t one = __float_as_uint(1.0f);
    if (threadIdx.x < 16)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                     "{%0, %1, %2, %3}, {%4, %4, %4, %4}, {%4, %4}, {%0, %1, %2, %3};\n"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(one));
    d[threadIdx.x] = acc[0];
}

// ---- ldmatrix ------------------------------------------------------------------------------------

// Four 8x8 matrices of 16-bit values (m[i * 64 + row * 8 + col]) through every ldmatrix form:
// out[(form * 32 + lane) * 4 + register] for the forms x1, x2, x4, x1.trans, x2.trans, x4.trans.
// Lane l names row l % 8 of matrix l / 8; past the matrices an ldmatrix ignores the address (x1
// gets none there).
__global__ void ldmatrix_forms(const uint16_t *m, uint32_t *out)
{
    __shared__ __align__(16) uint16_t tile[4 * 64];
    int lane = threadIdx.x;
    for (int i = lane; i < 4 * 64; i += 32)
        tile[i] = m[i];
    __syncwarp();
    const uint16_t *row = &tile[lane * 8];
    uint32_t *o = out + lane * 4;
    uint32_t x1, x2[2], x4[4];
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
                 : "=r"(x1) : "l"(lane < 8 ? __cvta_generic_to_shared(row) : 0));
    o[0] = x1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(x2[0]), "=r"(x2[1]) : "r"((unsigned)__cvta_generic_to_shared(row)));
    o[128] = x2[0], o[129] = x2[1];
    ldmatrix_x4(x4, row);
    o[256] = x4[0], o[257] = x4[1], o[258] = x4[2], o[259] = x4[3];
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
                 : "=r"(x1) : "l"(__cvta_generic_to_shared(row)));
    o[384] = x1;
    ldmatrix_x2_trans(x2, row);
    o[512] = x2[0], o[513] = x2[1];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(x4[0]), "=r"(x4[1]), "=r"(x4[2]), "=r"(x4[3]) : "l"(__cvta_generic_to_shared(row)));
    o[640] = x4[0], o[641] = x4[1], o[642] = x4[2], o[643] = x4[3];
}

// ldmatrix reads shared memory as the lane that names the row: mode 0 is correct; mode 1 leaves
// matrix 3 unwritten; mode 2 rewrites the tile (lanes striding over it, so every row holds other
// lanes' values) with no __syncwarp before the ldmatrix: a race.
__global__ void ldmatrix_checked(const uint16_t *m, uint32_t *out, int mode)
{
    __shared__ __align__(16) uint16_t tile[4 * 64];
    int lane = threadIdx.x;
    for (int i = lane; i < (mode == 1 ? 3 : 4) * 64; i += 32)
        tile[i] = m[i];
    __syncwarp();
    if (mode == 2)
        for (int i = lane; i < 4 * 64; i += 32)
            tile[i] = m[i] + 1;  // line 173: the racing write
    uint32_t r[4];
    ldmatrix_x4(r, &tile[lane * 8]);  // the reads: line 12, the asm of ldmatrix_x4
    for (int i = 0; i < 4; i++)
        out[lane * 4 + i] = r[i];
}

// ---- cvt.rna.tf32.f32 ------------------------------------------------------------------------------

__global__ void cvt_tf32(const float *x, uint32_t *y, int n)
{
    int i = threadIdx.x;
    if (i < n)
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(y[i]) : "f"(x[i]));
}

// ---- wgmma.mma_async: a warpgroup's product, complete at wgmma.wait_group -----------------------------

// D (64 x 8) = A (64 x 8, ones) * B (8 x 8, a shared tile of ones, no swizzle: two core matrices of
// 8 columns by 4 k, 128 bytes apart) for a warpgroup of 128 threads. out[3t]: d[0] read between the
// issue and the wait (ptxas makes that read wait for the product: warning C7517); mode 1: the tile
// becomes twos after the issue (behind a barrier), before the wait: a race with the tensor cores'
// read; mode 2: no barrier between the tile's writes and the product's reads (line 209);
// out[3t + 1], out[3t + 2]: d[0] and d[3] after the wait.
__global__ void wgmma_async(float *out, int mode)
{
    __shared__ __align__(1024) float tile[64];
    int t = threadIdx.x;
    if (t < 64)
        tile[t] = 1.0f;
    if (mode != 2)
        __syncthreads();
    unsigned a[4] = {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u};
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    unsigned long long desc = (unsigned long long)((__cvta_generic_to_shared(tile) >> 4) & 0x3fff) | (8ull << 16) | (8ull << 32);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, 1, 1, 1;\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    out[3 * t] = d[0];
    if (mode == 1) {
        __syncthreads();
        if (t < 64)
            tile[t] = 2.0f;
        __syncthreads();
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    out[3 * t + 1] = d[0];
    out[3 * t + 2] = d[3];
}
