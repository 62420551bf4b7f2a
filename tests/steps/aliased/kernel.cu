// tests/steps/aliased/kernel.cu: y[i] += x[i] * w[k] over k, launched by problem.lua with x and y
// the same buffer. The original reads y as it changes it; `accumulate` (which assumes the
// accumulated array is not also read through another pointer) sums into a register and adds once,
// so its step, and every step after it, differs from the original: the step that fails
// verification for tests/steps.sh.
__global__ void scale_sum(int n, int m, float *y, const float *x, const float *w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int k = 0; k < m; k++) {
      y[i] += x[i] * w[k];
    }
  }
}
