// Inline PTX with asm volatile: lane id, clock, fused ops, predicated load.
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ unsigned lane_id()
{
    unsigned id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}

__device__ __forceinline__ unsigned long long global_timer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ float fma_rn(float a, float b, float c)
{
    float d;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
    return d;
}

__device__ __forceinline__ float ldg_nc(const float *p)
{
    float v;
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__global__ void ptx_demo(const float *x, float *y, unsigned *lanes,
                         unsigned long long *times, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long t0 = global_timer();
    if (i < n) {
        float v = ldg_nc(x + i);
        y[i] = fma_rn(v, 2.0f, 1.0f);
        lanes[i] = lane_id();
    }
    asm volatile("bar.sync 0;" ::: "memory");
    if (threadIdx.x == 0)
        times[blockIdx.x] = global_timer() - t0;
}

__global__ void add_carry(const uint32_t *a, const uint32_t *b, uint32_t *lo, uint32_t *hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t r0, r1;
    asm volatile(
        "add.cc.u32  %0, %2, %3;\n\t"
        "addc.u32    %1, 0, 0;\n\t"
        : "=r"(r0), "=r"(r1)
        : "r"(a[i]), "r"(b[i]));
    lo[i] = r0;
    hi[i] = r1;
}

void launch_ptx(const float *x, float *y, unsigned *l, unsigned long long *t, int n)
{
    ptx_demo<<<(n + 127) / 128, 128>>>(x, y, l, t, n);
}
