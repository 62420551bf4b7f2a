// Sparse matrix-vector product y = A*x with A in CSR format:
// scalar kernel (one thread per row) and vector kernel (one warp per row).
#include <cuda_runtime.h>

__global__ void spmv_csr_scalar(int rows, const int *__restrict__ row_ptr,
                                const int *__restrict__ col_idx,
                                const float *__restrict__ vals,
                                const float *__restrict__ x, float *__restrict__ y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f;
        int start = row_ptr[row];
        int end = row_ptr[row + 1];
        for (int j = start; j < end; ++j)
            dot += vals[j] * __ldg(&x[col_idx[j]]);
        y[row] = dot;
    }
}

__global__ void spmv_csr_vector(int rows, const int *row_ptr, const int *col_idx,
                                const float *vals, const float *x, float *y)
{
    const int warps_per_block = blockDim.x / 32;
    int warp = blockIdx.x * warps_per_block + threadIdx.x / 32;
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;

    float sum = 0.0f;
    for (int j = row_ptr[warp] + lane; j < row_ptr[warp + 1]; j += 32)
        sum += vals[j] * x[col_idx[j]];

    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) y[warp] = sum;
}

void spmv(int rows, int nnz, const int *rp, const int *ci, const float *v,
          const float *x, float *y)
{
    float avg = rows ? (float)nnz / rows : 0.0f;
    if (avg < 8.0f) {
        spmv_csr_scalar<<<(rows + 255) / 256, 256>>>(rows, rp, ci, v, x, y);
    } else {
        int threads = 128;
        int blocks = (rows + threads / 32 - 1) / (threads / 32);
        spmv_csr_vector<<<blocks, threads>>>(rows, rp, ci, v, x, y);
    }
}
