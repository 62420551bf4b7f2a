// A kernel whose opening brace and first statement depend on a build switch, as hand-tuned
// kernels often do: the braces of each branch balance only together with the code after the
// group, so a parser that reads both branches sees one brace too many. Code under `#if 0` is
// notes, not C.
#include <cuda_runtime.h>

#define STAGE_IN_SHARED 1
#define TILE 128

#if 0
old version: for each i { x[i] *= 2 }  (kept for reference)
#endif

__global__ void scale_rows(float *x, const float *s, int rows, int cols)
#if STAGE_IN_SHARED
{
    __shared__ float row_scale[TILE];
    if (threadIdx.x < TILE) row_scale[threadIdx.x] = s[blockIdx.x];
    __syncthreads();
#else
{
#endif
    int r = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
#if STAGE_IN_SHARED && TILE >= 64
        x[r * cols + c] *= row_scale[0];
#elif defined(USE_LDG)
        x[r * cols + c] *= __ldg(&s[r]);
#else
        x[r * cols + c] *= s[r];
#endif
    }
}

#ifndef STAGE_IN_SHARED
__global__ void scale_rows_plain(float *x, const float *s, int rows, int cols)
{
    x[blockIdx.x * cols + threadIdx.x] *= s[blockIdx.x];
}
#endif

void run(float *x, const float *s, int rows, int cols)
{
    scale_rows<<<rows, TILE>>>(x, s, rows, cols);
}
