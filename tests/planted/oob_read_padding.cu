// tests/planted/oob_read_padding.cu (class 3; examples/vector_add): float4 loads for every group
// of four up to n rounded up, stores only below n. For n % 4 != 0 the last load reads up to three
// elements past the end of x and y, inside the allocation's padding: the results are right, the
// reads are out of bounds.
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int stride = blockDim.x * gridDim.x;
  for (int g = blockIdx.x * blockDim.x + threadIdx.x; g * 4 < n; g += stride) {
    float4 xv = reinterpret_cast<const float4 *>(x)[g];
    float4 yv = reinterpret_cast<const float4 *>(y)[g];
    float r[4] = {a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w};
    for (int j = 0; j < 4; j++)
      if (g * 4 + j < n) out[g * 4 + j] = r[j];
  }
}
