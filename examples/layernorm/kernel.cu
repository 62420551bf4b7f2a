// examples/layernorm/kernel.cu: LayerNorm over the last dims, fp32. x is (rows, cols), row-major
// (for the benchmark, x is (16, 64, 256, 256) normalised over its last three dims: rows = 16,
// cols = 64*256*256); weight and bias have cols elements each:
//   mean = sum_j x[r][j] / cols,  var = sum_j (x[r][j] - mean)^2 / cols  (biased, as PyTorch)
//   y[r][j] = (x[r][j] - mean) / sqrt(var + eps) * weight[j] + bias[j]
// Written plainly: one block of 256 threads per row; each thread strides over the row, and a
// shared-memory tree reduction combines the partial sums, once for the mean and once for the
// variance (two passes over the row), then a third sweep writes y.
#include <cuda_runtime.h>

__global__ void layernorm(int rows, int cols, float eps, float *x, float *weight, float *bias,
                          float *y) {
  __shared__ float buf[256];
  int row = blockIdx.x;
  int tid = threadIdx.x;
  if (row >= rows) return;

  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) {
    sum += x[row * cols + j];
  }
  buf[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) {
      buf[tid] += buf[tid + s];
    }
    __syncthreads();
  }
  float mean = buf[0] / cols;
  __syncthreads();

  float sq = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) {
    float d = x[row * cols + j] - mean;
    sq += d * d;
  }
  buf[tid] = sq;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) {
      buf[tid] += buf[tid + s];
    }
    __syncthreads();
  }
  float var = buf[0] / cols;
  float inv = 1.0f / sqrtf(var + eps);

  for (int j = tid; j < cols; j += blockDim.x) {
    y[row * cols + j] = (x[row * cols + j] - mean) * inv * weight[j] + bias[j];
  }
}

void launch_layernorm(int rows, int cols, float eps, float *x, float *weight, float *bias,
                      float *y, cudaStream_t stream) {
  layernorm<<<rows, 256, 0, stream>>>(rows, cols, eps, x, weight, bias, y);
}
