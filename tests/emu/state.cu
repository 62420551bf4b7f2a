// tests/emu/state.cu: kernels for the emulator's rounds and sampled blocks (test_emu.c): a
// __device__ counter that lives as long as the process, a kernel that traps from its second call
// on, and one that marks which blocks ran.
#include <cuda_runtime.h>

__device__ int g_calls;

__global__ void count_calls(int *out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = ++g_calls;
}

__global__ void trap_on_second_call(int *out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    if (++g_calls >= 2) __trap();
    out[0] = g_calls;
  }
}

__global__ void mark_blocks(int *out) {
  if (threadIdx.x == 0) out[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] += 1;
}
