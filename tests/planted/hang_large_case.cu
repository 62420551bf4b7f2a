// tests/planted/hang_large_case.cu (class 9; examples/vector_add): spins forever at n = 4099.
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  volatile int spin = n == 4099;
  while (spin) {
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
