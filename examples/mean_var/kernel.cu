// examples/mean_var/kernel.cu: the mean and the population variance of each row of x
// (rows, cols), fp32, row-major:
//   mean[r] = sum_j x[r][j] / cols,  var[r] = sum_j (x[r][j] - mean[r])^2 / cols
// Written plainly: one thread per row (256 threads a block) and two loops over the row, one for
// the mean and one for the squared deviations from it (the two-pass form, which does not lose
// the variance to cancellation as sum(x^2) - mean^2 can). Neighbouring threads read addresses
// cols floats apart, so the loads are not coalesced, and the row is read twice.
#include <cuda_runtime.h>

__global__ void mean_var(int rows, int cols, float *x, float *mean, float *var) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = 0; j < cols; j++) {
      sum += x[row * cols + j];
    }
    float mu = sum / cols;
    float sq = 0.0f;
    for (int j = 0; j < cols; j++) {
      float d = x[row * cols + j] - mu;
      sq += d * d;
    }
    mean[row] = mu;
    var[row] = sq / cols;
  }
}

void launch_mean_var(int rows, int cols, float *x, float *mean, float *var, cudaStream_t stream) {
  int block = 256;
  int grid = (rows + block - 1) / block;
  mean_var<<<grid, block, 0, stream>>>(rows, cols, x, mean, var);
}
