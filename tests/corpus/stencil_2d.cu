// 5-point Jacobi stencil on a 2-D grid with a shared-memory tile plus halo,
// iterated from the host by ping-ponging two buffers.
#include <cuda_runtime.h>
#include <utility>

#define BX 32
#define BY 8
#define RADIUS 1

__global__ void jacobi5(const float *__restrict__ u, float *__restrict__ v, int nx, int ny)
{
    __shared__ float tile[BY + 2 * RADIUS][BX + 2 * RADIUS];
    int gx = blockIdx.x * BX + threadIdx.x;
    int gy = blockIdx.y * BY + threadIdx.y;
    int lx = threadIdx.x + RADIUS;
    int ly = threadIdx.y + RADIUS;

    auto load = [&](int x, int y) -> float {
        x = min(max(x, 0), nx - 1);
        y = min(max(y, 0), ny - 1);
        return u[y * nx + x];
    };

    tile[ly][lx] = load(gx, gy);
    if (threadIdx.x < RADIUS) {
        tile[ly][lx - RADIUS] = load(gx - RADIUS, gy);
        tile[ly][lx + BX] = load(gx + BX, gy);
    }
    if (threadIdx.y < RADIUS) {
        tile[ly - RADIUS][lx] = load(gx, gy - RADIUS);
        tile[ly + BY][lx] = load(gx, gy + BY);
    }
    __syncthreads();

    if (gx > 0 && gy > 0 && gx < nx - 1 && gy < ny - 1) {
        v[gy * nx + gx] = 0.25f * (tile[ly][lx - 1] + tile[ly][lx + 1] +
                                   tile[ly - 1][lx] + tile[ly + 1][lx]);
    } else if (gx < nx && gy < ny) {
        v[gy * nx + gx] = tile[ly][lx];
    }
}

void jacobi(float *a, float *b, int nx, int ny, int iters, cudaStream_t s)
{
    dim3 block(BX, BY);
    dim3 grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
    for (int it = 0; it < iters; ++it) {
        jacobi5<<<grid, block, 0, s>>>(a, b, nx, ny);
        std::swap(a, b);
    }
    cudaStreamSynchronize(s);
}
