// Host code broken on purpose: a kernel launch whose <<< is never closed with
// >>>. The kernel is read; the host error is a warning at its place.
#include <cuda_runtime.h>

__global__ void fill(int *p, int v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}

void launch(int *p, int n)
{
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    fill<<<blocks, threads>>>(p, 0, n);
    cudaDeviceSynchronize();
    fill<<<blocks, threads(p, 1, n);
    cudaDeviceSynchronize();
}
