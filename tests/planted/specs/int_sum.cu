// tests/planted/specs/int_sum.cu: out[0] += the sum of n int32 values, one atomicAdd a thread.
__global__ void int_sum(int n, const int *x, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&out[0], x[i]);
}
