// Only the named pointers are marked; the others keep their declarations.
__global__ void add3(const float *a, float *b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
