// __launch_bounds__ with one and two arguments, plus a templated bound.
#include <cuda_runtime.h>

#define THREADS 256

__global__ void __launch_bounds__(256) saxpy_bounded(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void __launch_bounds__(256, 2)
square_bounded(float *data, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = data[i];
        data[i] = v * v;
    }
}

__launch_bounds__(THREADS, 4)
__global__ void relu_bounded(float *data, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n && data[i] < 0.0f)
        data[i] = 0.0f;
}

template <int BS>
__global__ void __launch_bounds__(BS) add_one(int *v, int n)
{
    int i = blockIdx.x * BS + threadIdx.x;
    if (i < n) v[i] += 1;
}

void run_all(float *x, float *y, int *iv, int n)
{
    int blocks = (n + THREADS - 1) / THREADS;
    saxpy_bounded<<<blocks, THREADS>>>(n, 3.0f, x, y);
    square_bounded<<<blocks / 2 + 1, THREADS>>>(y, n);
    relu_bounded<<<blocks, THREADS>>>(y, n);
    add_one<128><<<(n + 127) / 128, 128>>>(iv, n);
}
