// The helper writes through its parameter.
__device__ void clamp_in_place(float *p, int i) { if (p[i] < 0.0f) p[i] = 0.0f; }

__global__ void relu(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) clamp_in_place(x, i);
}
