// A grid-stride reduction: each thread's accumulator would sum different elements.
__global__ void sum(const float *x, float *out, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    acc += x[i];
  atomicAdd(out, acc);
}
