// tests/planted/off_by_one_write.cu (usual; examples/vector_add): `i <= n` writes out[n], one
// element past the end.
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i < n ? i : 0] + y[i < n ? i : 0];
}
