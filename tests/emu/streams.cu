// A kernel for tests/unit/test_emu.c that neither uses shared memory nor atomics: the emulator
// checks its races on global memory only when asked (KrEmuOptions.race_check).
#include <cuda_runtime.h>

// Every thread adds into y[0]: a lost update.
__global__ void add_all(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[0] += x[i];  // line 10
}
