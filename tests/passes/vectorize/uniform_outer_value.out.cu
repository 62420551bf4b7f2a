// Values computed before the guard from parameters and a load at a uniform address are the same
// in every thread, so the element's statements may read them.
__global__ void affine_map(const float *x, const float *coef, float *y, int n, float bias) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float scale = coef[0] * 2.0f;
  float shift = bias + fmaxf(coef[1], 0.0f);
  // vectorize: whole vectors only when x and y are 16-byte aligned (x + 1 is not)
  const bool kr_aligned = (reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) % 16 == 0;
  const int kr_nv = kr_aligned ? (n) / 4 : 0;
  if (i < kr_nv) {
    const int kr_v = i;
    const float4 kr_x = reinterpret_cast<const float4 *>(x)[kr_v];
    float4 kr_y;
    kr_y.x = kr_x.x * scale + shift;
    kr_y.y = kr_x.y * scale + shift;
    kr_y.z = kr_x.z * scale + shift;
    kr_y.w = kr_x.w * scale + shift;
    reinterpret_cast<float4 *>(y)[kr_v] = kr_y;
  }
  for (int kr_e = kr_nv * 4 + i; kr_e < (n); kr_e += gridDim.x * blockDim.x) {
    const int i = kr_e;
    y[i] = x[i] * scale + shift;
  }
}
