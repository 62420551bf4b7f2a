// tests/planted/zeros.cu (usual; examples/vector_add): writes every element, all zeros.
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = 0.0f;
}
