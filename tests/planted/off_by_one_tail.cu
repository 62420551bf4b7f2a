// tests/planted/off_by_one_tail.cu (usual; examples/vector_add): the loop stops one element
// short, so out[n - 1] is never written.
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - 1; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}
