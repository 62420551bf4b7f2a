// Host code only — no kernels. Allocates device/pinned memory, copies data
// around (H2D, D2D, D2H, async), queries device properties and times copies.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static bool check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    size_t n = (argc > 1) ? strtoul(argv[1], nullptr, 10) : (1u << 20);
    size_t bytes = n * sizeof(float);

    cudaDeviceProp prop;
    if (!check(cudaGetDeviceProperties(&prop, 0), "props")) return 1;
    printf("device: %s, SMs: %d\n", prop.name, prop.multiProcessorCount);

    std::vector<float> host(n, 1.0f);
    float *pinned = nullptr, *d_a = nullptr, *d_b = nullptr;
    check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
    check(cudaMalloc(&d_a, bytes), "cudaMalloc a");
    check(cudaMalloc((void **)&d_b, bytes), "cudaMalloc b");

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);

    cudaEventRecord(start);
    check(cudaMemcpy(d_a, host.data(), bytes, cudaMemcpyHostToDevice), "H2D");
    check(cudaMemcpy(d_b, d_a, bytes, cudaMemcpyDeviceToDevice), "D2D");
    check(cudaMemcpyAsync(pinned, d_b, bytes, cudaMemcpyDeviceToHost, 0), "D2H async");
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);

    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    printf("copied %zu bytes three times in %.3f ms (%.1f us)\n", bytes, ms, ms * 1000.0f);

    check(cudaMemset(d_a, 0, bytes), "memset");
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    printf("free %zu / %zu MiB, pinned[0]=%f\n", free_b >> 20, total_b >> 20, pinned[0]);

    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFreeHost(pinned);
    return 0;
}
