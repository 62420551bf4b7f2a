// A pointer named v: its vector local would be kr_v, the name of the vector index, so one of
// them gets a suffix.
__global__ void square(const int *v, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = v[i] * v[i];
}
