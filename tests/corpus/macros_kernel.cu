/* Preprocessor-heavy kernel: #define constants, function-like macros used in
 * kernel bodies, #ifdef / #if blocks, and a macro that wraps a launch. */
#include <cuda_runtime.h>
#include <cstdio>

#define BLOCK_SIZE 256
#define IDX2(r, c, ld) ((r) * (ld) + (c))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define SQUARE(x) ((x) * (x))
#define CUDA_CHECK(call)                                                   \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,              \
                    cudaGetErrorString(err_));                             \
        }                                                                  \
    } while (0)

#ifndef USE_FAST_MATH
#define USE_FAST_MATH 1
#endif

__global__ void dist2(const float *pts, float *out, int rows, int cols)
{
    int r = blockIdx.y;
    int c = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (c >= cols) return;
    float acc = 0.0f;
    for (int k = 0; k < MIN(cols, 3); ++k)
        acc += SQUARE(pts[IDX2(r, k, cols)] - pts[IDX2(c % rows, k, cols)]);
#if USE_FAST_MATH
    out[IDX2(r, c, cols)] = __fsqrt_rn(acc);
#else
    out[IDX2(r, c, cols)] = sqrtf(acc);
#endif
}

#ifdef DEBUG_KERNELS
__global__ void debug_dump(const float *p, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        for (int i = 0; i < n; ++i) printf("%d: %f\n", i, p[i]);
}
#endif

#define LAUNCH_1D(kernel, n, ...) kernel<<<((n) + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(__VA_ARGS__)

__global__ void zero_fill(float *p, int n)
{
    int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i < n) p[i] = 0.0f;
}

void run(float *pts, float *out, int rows, int cols)
{
    dim3 grid((cols + BLOCK_SIZE - 1) / BLOCK_SIZE, rows);
    LAUNCH_1D(zero_fill, rows * cols, out, rows * cols);
    dist2<<<grid, BLOCK_SIZE>>>(pts, out, rows, cols);
#ifdef DEBUG_KERNELS
    debug_dump<<<1, 1>>>(out, 16);
#endif
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}
