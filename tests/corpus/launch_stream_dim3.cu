// Host launch patterns: dim3 grids, 3- and 4-argument launch configurations
// with streams, launches inside loops, and launches with expression configs.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void init_rows(float *m, int rows, int cols, float base)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && c < cols) m[r * cols + c] = base + r;
}

__global__ void chunk_scale(float *p, int len, float s)
{
    extern __shared__ float scratch[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    scratch[threadIdx.x] = (i < len) ? p[i] : 0.0f;
    __syncthreads();
    if (i < len) p[i] = scratch[threadIdx.x] * s;
}

__global__ void noop() {}

int main()
{
    const int rows = 1024, cols = 1024, nstreams = 4;
    float *m;
    cudaMalloc(&m, rows * cols * sizeof(float));

    cudaStream_t streams[nstreams];
    for (int s = 0; s < nstreams; ++s)
        cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking);

    dim3 block(16, 16, 1);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    init_rows<<<grid, block>>>(m, rows, cols, 0.0f);
    init_rows<<<grid, block, 0>>>(m, rows, cols, 1.0f);
    init_rows<<<grid, block, 0, streams[0]>>>(m, rows, cols, 2.0f);

    int chunk = rows * cols / nstreams;
    for (int s = 0; s < nstreams; ++s) {
        float *p = m + s * chunk;
        int threads = 256;
        chunk_scale<<<(chunk + threads - 1) / threads, threads, threads * sizeof(float), streams[s]>>>(p, chunk, 0.5f);
    }

    int iter = 0;
    while (iter < 3) {
        noop<<<dim3(1), dim3(32), 0, streams[iter % nstreams]>>>();
        ++iter;
    }
    noop<<<1, 1, 0, cudaStreamPerThread>>>();

    for (int s = 0; s < nstreams; ++s) {
        cudaStreamSynchronize(streams[s]);
        cudaStreamDestroy(streams[s]);
    }
    printf("done: %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(m);
    return 0;
}
