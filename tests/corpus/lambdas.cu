// Lambdas: host-side lambdas that launch kernels, and plain lambdas defined
// inside device code (no --extended-lambda needed for either).
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#include <cstdio>

__global__ void apply_poly(float *x, int n, float a, float b, float c)
{
    auto poly = [=](float t) { return (a * t + b) * t + c; };
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = poly(x[i]);
}

__global__ void count_if_gt(const int *v, int n, int thresh, int *count)
{
    auto pred = [thresh](int e) -> bool { return e > thresh; };
    int local = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        if (pred(v[i])) ++local;
    }
    atomicAdd(count, local);
}

int main()
{
    const int n = 4096;
    float *dx;
    int *dv, *dcount;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dv, n * sizeof(int));
    cudaMalloc(&dcount, sizeof(int));

    auto blocks_for = [](int count, int threads) { return (count + threads - 1) / threads; };
    auto check = [&](const char *what) {
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) printf("%s failed: %s\n", what, cudaGetErrorString(e));
    };

    std::vector<float> coeffs = {1.0f, -2.0f, 0.5f};
    std::for_each(coeffs.begin(), coeffs.end(), [&](float c) {
        apply_poly<<<blocks_for(n, 256), 256>>>(dx, n, c, 1.0f, 0.0f);
        check("apply_poly");
    });

    auto launch_count = [=](int thresh) {
        cudaMemset(dcount, 0, sizeof(int));
        count_if_gt<<<32, 128>>>(dv, n, thresh, dcount);
    };
    launch_count(10);
    check("count_if_gt");

    cudaFree(dx);
    cudaFree(dv);
    cudaFree(dcount);
    return 0;
}
