// tests/planted/lost_update.cu (class 5; specs/int_sum): `out[0] += x[i]` without an atomic: on a
// GPU concurrent read-modify-writes lose updates.
__global__ void int_sum(int n, const int *x, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[0] += x[i];
}
