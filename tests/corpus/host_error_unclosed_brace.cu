// Host code broken on purpose: the last (host) function's body is never
// closed (the file ends inside the block opened on line 17). The kernel above
// it is read; the host error is a warning at its place.
#include <cuda_runtime.h>

__global__ void add_bias(float *y, const float *b, int rows, int cols)
{
    int r = blockIdx.x;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[r * cols + c] += b[c];
}

void launch(float *y, const float *b, int rows, int cols)
{
    add_bias<<<rows, 128>>>(y, b, rows, cols);
    cudaDeviceSynchronize();
    if (rows > 0) {
        cudaError_t e = cudaGetLastError();
        (void)e;
    }
    for (int i = 0; i < 2; ++i) {
        add_bias<<<rows, 128>>>(y, b, rows, cols);
    }
    // missing closing brace below
