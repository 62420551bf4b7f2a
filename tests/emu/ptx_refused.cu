// Inline PTX the CPU emulator must refuse, each with its location (tests/unit/test_emu.c names the
// lines): instructions it does not run, and one it runs written in a way it does not read.
#include <cstdint>

__global__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");  // line 7
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
