// A kernel with a C++ error: the emulator's diagnostic must point at this file's line 6.
#include <cuda_runtime.h>

__global__ void broken(float *y)
{
    y[threadIdx.x] = undeclared_value * 2.0f;
}
