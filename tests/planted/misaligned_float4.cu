// tests/planted/misaligned_float4.cu (usual; examples/vector_add): a hand-vectorised kernel that
// peels one element and then moves four at a time from &x[1 + 4t]: those float4 accesses are 4
// bytes past a 16-byte boundary, which the GPU stops as a misaligned address (on the host the
// same loads would simply work).
__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t == 0 && n > 0) out[0] = a * x[0] + y[0];
  int i = 1 + 4 * t;
  if (i + 3 < n) {
    float4 xv = *reinterpret_cast<const float4 *>(&x[i]);
    float4 yv = *reinterpret_cast<const float4 *>(&y[i]);
    float4 o = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
    *reinterpret_cast<float4 *>(&out[i]) = o;
  } else {
    for (; i < n && i < 1 + 4 * (t + 1); i++) out[i] = a * x[i] + y[i];
  }
}
