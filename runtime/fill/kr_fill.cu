/* runtime/fill/kr_fill.cu: the GPU's fill module, loaded by the verifier's GPU child beside the
 * reference and the candidate (runtime/cuda_server.c). It makes a buffer's inputs on the device
 * with the generator the host uses (kr_fill.h), so that no input crosses PCIe, and checks on the
 * device that an input still holds them. krewrite embeds this file and kr_fill.h and compiles
 * them with nvcc -fmad=false through the cubin cache (runtime/fill_module.c): without
 * contraction into fused multiply-adds, the device's doubles round as the host's do.
 *
 * Kernels (extern "C", so the driver finds them by name; grid-stride loops, any grid):
 *   kr_fill(buf, count, key, a, b, kind, dtype)          element i = kr_gen_value(key, kind, a, b, i)
 *   kr_fill_check(buf, count, key, a, b, kind, dtype, first)
 *                                                          *first = min(*first, i) for every
 *                                                          element i that does not hold it */
#ifndef KR_FILL_GEN_H
#include "kr_fill.h"
#endif

extern "C" __global__ void kr_fill(void *buf, unsigned long long count, unsigned long long key, double a,
                                   double b, int kind, int dtype) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
    kr_gen_store(buf, dtype, i, kr_gen_value(key, kind, a, b, i));
}

extern "C" __global__ void kr_fill_check(const void *buf, unsigned long long count, unsigned long long key,
                                         double a, double b, int kind, int dtype,
                                         unsigned long long *first) {
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
    if (!kr_gen_holds(buf, dtype, i, kr_gen_value(key, kind, a, b, i))) {
      atomicMin(first, i);
      return;   /* this thread's later elements come after i */
    }
}
