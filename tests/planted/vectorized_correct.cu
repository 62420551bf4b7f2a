// tests/planted/vectorized_correct.cu (correct; examples/vector_add): float4 loads and stores for
// whole groups of four, a scalar tail for the last n % 4 elements; nothing read past the end.
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int stride = blockDim.x * gridDim.x;
  int groups = n / 4;
  for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += stride) {
    float4 xv = reinterpret_cast<const float4 *>(x)[g];
    float4 yv = reinterpret_cast<const float4 *>(y)[g];
    float4 r = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
    reinterpret_cast<float4 *>(out)[g] = r;
  }
  for (int i = groups * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = a * x[i] + y[i];
}
