// Matrix transpose through a padded 2-D shared tile (avoids bank conflicts).
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_tiled(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < width && (y + j) < height)
            tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    }
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < height && (y + j) < width)
            odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

__global__ void transpose_naive(float *odata, const float *idata, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        odata[x * height + y] = idata[y * width + x];
}

void transpose(float *dst, const float *src, int w, int h, bool naive)
{
    dim3 grid((w + TILE_DIM - 1) / TILE_DIM, (h + TILE_DIM - 1) / TILE_DIM);
    if (naive) {
        dim3 block(TILE_DIM, TILE_DIM);
        transpose_naive<<<grid, block>>>(dst, src, w, h);
    } else {
        dim3 block(TILE_DIM, BLOCK_ROWS);
        transpose_tiled<<<grid, block>>>(dst, src, w, h);
    }
}
