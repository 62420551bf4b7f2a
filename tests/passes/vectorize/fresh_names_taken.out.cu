// The kernel already has a variable named kr_v, and the file a macro named kr_e that the kernel
// does not use (only a whole-file check sees it): the vector index and the tail variable the
// pass writes take the next free names, kr_v_1 and kr_e_1. A kr_x in a comment captures
// nothing, so the vector local of x is still kr_x.
#define kr_e 0
__global__ void scale(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int kr_v = 1;
  // vectorize: whole vectors only when x and y are 16-byte aligned (x + 1 is not)
  const bool kr_aligned = (reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) % 16 == 0;
  const int kr_nv = kr_aligned ? (n) / 4 : 0;
  if (i < kr_nv) {
    const int kr_v_1 = i;
    const float4 kr_x = reinterpret_cast<const float4 *>(x)[kr_v_1];
    float4 kr_y;
    kr_y.x = 2.0f * kr_x.x + kr_v;
    kr_y.y = 2.0f * kr_x.y + kr_v;
    kr_y.z = 2.0f * kr_x.z + kr_v;
    kr_y.w = 2.0f * kr_x.w + kr_v;
    reinterpret_cast<float4 *>(y)[kr_v_1] = kr_y;
  }
  for (int kr_e_1 = kr_nv * 4 + i; kr_e_1 < (n); kr_e_1 += gridDim.x * blockDim.x) {
    const int i = kr_e_1;
    y[i] = 2.0f * x[i] + kr_v;
  }
}
