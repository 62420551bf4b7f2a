// Inline PTX the CPU emulator must refuse, each with its location (tests/unit/test_emu.c names the
// lines): instructions it does not run, and ones it runs written in ways it does not read.
#include <cstdint>

__global__ void wgmma_bf16(float *d, unsigned long long da, unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db));  // line 7
}

__global__ void mma_k4(const uint32_t *a, float *d)
{
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 "  // line 13
                 "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]));
    d[threadIdx.x] = acc[0];
}

__global__ void ldmatrix_offset(const uint16_t *m, uint32_t *out)
{
    __shared__ __align__(16) uint16_t tile[64 + 8];
    tile[threadIdx.x] = m[threadIdx.x];
    __syncwarp();
    uint32_t r;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1+16];\n"  // line 26
                 : "=r"(r) : "l"(__cvta_generic_to_shared(&tile[threadIdx.x % 8 * 8])));
    out[threadIdx.x] = r;
}

__global__ void wgmma_scale_d(float *d, const unsigned *a, unsigned long long db)
{
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, 0, 1, 1;\n"  // line 34
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    d[threadIdx.x] = acc[0];
}

__global__ void wgmma_trans_b(float *d, const unsigned *a, unsigned long long db)
{
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, 1, 1, 1, 1;\n"  // line 43
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    d[threadIdx.x] = acc[0];
}
