// tests/planted/warp_aggregated_atomics.cu (correct; specs/int_sum): each warp sums its values with
// shuffles and lane 0 adds the warp's sum with one atomicAdd.
__global__ void int_sum(int n, const int *x, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
  for (int k = 16; k > 0; k /= 2) v += __shfl_down_sync(0xffffffffu, v, k);
  if (threadIdx.x % 32 == 0) atomicAdd(&out[0], v);
}
