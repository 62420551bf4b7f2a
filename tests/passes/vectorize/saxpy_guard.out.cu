// The if shape: a guarded elementwise update, width 4 (float4), with a scalar tail.
__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // vectorize: whole vectors only when x and y are 16-byte aligned (x + 1 is not)
  const bool kr_aligned = (reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) % 16 == 0;
  const int kr_nv = kr_aligned ? (n) / 4 : 0;
  if (i < kr_nv) {
    const int kr_v = i;
    const float4 kr_x = reinterpret_cast<const float4 *>(x)[kr_v];
    float4 kr_y = reinterpret_cast<const float4 *>(y)[kr_v];
    kr_y.x = a * kr_x.x + kr_y.x;
    kr_y.y = a * kr_x.y + kr_y.y;
    kr_y.z = a * kr_x.z + kr_y.z;
    kr_y.w = a * kr_x.w + kr_y.w;
    reinterpret_cast<float4 *>(y)[kr_v] = kr_y;
  }
  for (int kr_e = kr_nv * 4 + i; kr_e < (n); kr_e += gridDim.x * blockDim.x) {
    const int i = kr_e;
    y[i] = a * x[i] + y[i];
  }
}
