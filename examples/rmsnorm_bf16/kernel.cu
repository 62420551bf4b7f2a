// examples/rmsnorm_bf16/kernel.cu: row-wise RMSNorm in bf16 with fp32 accumulation. x and y are
// (rows, cols) __nv_bfloat16, row-major; weight has cols bf16 elements:
//   y[r][j] = bf16( float(x[r][j]) / sqrt(sum_j float(x[r][j])^2 / cols + eps) * float(weight[j]) )
// Written plainly: one block of 256 threads per row; each thread strides over the row summing
// squares in fp32, a shared-memory tree reduction gives the row's sum, and a second sweep over
// the row writes y.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

__global__ void rmsnorm_bf16(int rows, int cols, float eps, __nv_bfloat16 *x,
                             __nv_bfloat16 *weight, __nv_bfloat16 *y) {
  __shared__ float buf[256];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row >= rows) return;

  float sq = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) {
    float v = __bfloat162float(x[row * cols + j]);
    sq += v * v;
  }
  buf[tid] = sq;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) {
      buf[tid] += buf[tid + s];
    }
    __syncthreads();
  }
  float inv = 1.0f / sqrtf(buf[0] / cols + eps);

  for (int j = tid; j < cols; j += blockDim.x) {
    float v = __bfloat162float(x[row * cols + j]);
    y[row * cols + j] = __float2bfloat16(v * inv * __bfloat162float(weight[j]));
  }
}

void launch_rmsnorm_bf16(int rows, int cols, float eps, __nv_bfloat16 *x, __nv_bfloat16 *weight,
                         __nv_bfloat16 *y, cudaStream_t stream) {
  rmsnorm_bf16<<<rows, 256, 0, stream>>>(rows, cols, eps, x, weight, y);
}
