// Tiled SGEMM: C = alpha * A * B + beta * C, row-major, shared-memory tiles,
// each thread computes a small register block.
#include <cuda_runtime.h>

#define TILE 32
#define TM 4

__global__ void sgemm_tiled(int M, int N, int K, float alpha,
                            const float *__restrict__ A, const float *__restrict__ B,
                            float beta, float *__restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];

    int tx = threadIdx.x;            // 0..TILE-1
    int ty = threadIdx.y;            // 0..TILE/TM-1
    int row0 = blockIdx.y * TILE + ty * TM;
    int col = blockIdx.x * TILE + tx;

    float acc[TM] = {0.0f};

    for (int t = 0; t < K; t += TILE) {
        for (int i = 0; i < TM; ++i) {
            int r = ty * TM + i;
            int arow = blockIdx.y * TILE + r;
            As[r][tx] = (arow < M && t + tx < K) ? A[arow * K + t + tx] : 0.0f;
            Bs[r][tx] = (t + r < K && col < N) ? B[(t + r) * N + col] : 0.0f;
        }
        __syncthreads();

#pragma unroll 8
        for (int k = 0; k < TILE; ++k) {
            float b = Bs[k][tx];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                acc[i] += As[ty * TM + i][k] * b;
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; ++i) {
        int r = row0 + i;
        if (r < M && col < N)
            C[r * N + col] = alpha * acc[i] + beta * C[r * N + col];
    }
}

__global__ void sgemm_naive(int M, int N, int K, const float *A, const float *B, float *C)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N) return;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[r * K + k] * B[k * N + c];
    C[r * N + c] = s;
}

void sgemm(int M, int N, int K, const float *A, const float *B, float *C)
{
    dim3 block(TILE, TILE / TM);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    sgemm_tiled<<<grid, block>>>(M, N, K, 1.0f, A, B, 0.0f, C);
}
