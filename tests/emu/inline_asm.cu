// Inline PTX in device code: the CPU emulator must refuse it with its location.
__device__ unsigned lane_id()
{
    unsigned id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}

__global__ void lanes(unsigned *out)
{
    out[threadIdx.x] = lane_id();
}
