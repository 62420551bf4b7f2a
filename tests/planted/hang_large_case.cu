// tests/planted/hang_large_case.cu (class 9; examples/vector_add): spins forever at n = 4099. The
// loop waits on clock64(), which no compiler may remove (an empty `while (flag)` on a local, even
// a volatile one, is gone from nvcc's code, so the GPU would never hang).
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  if (n == 4099) {
    long long start = clock64();
    while (clock64() - start >= 0) {
    }
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
