// tests/planted/oob_read_minus_one.cu (class 3; specs/prev_sum): x[i - 1] is loaded before the
// i > 0 test, so thread 0 reads x[-1]; the value is then discarded, so the results are right.
__global__ void prev_sum(int n, const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float prev = x[i - 1];
    out[i] = x[i] + (i > 0 ? prev : 0.0f);
  }
}
