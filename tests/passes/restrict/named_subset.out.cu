// Only the named pointers are marked; the others keep their declarations.
__global__ void add3(const float *a, const float *__restrict__ b, float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
