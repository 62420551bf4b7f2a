// Default selection with nothing eligible: one note per pointer.
__device__ void mystery(const float *p, float *q);

__global__ void k(float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
  mystery(a, b);
}
