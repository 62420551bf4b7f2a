// A CRLF file: the vector code the pass writes keeps the file's CRLF line endings.
__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // vectorize: whole vectors only when x and y are 16-byte aligned (x + 1 is not)
  const bool kr_aligned = (reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y)) % 16 == 0;
  const int kr_nv = kr_aligned ? (n) / 4 : 0;
  if (i < kr_nv) {
    const int kr_v = i;
    const float4 kr_x = reinterpret_cast<const float4 *>(x)[kr_v];
    float4 kr_y = reinterpret_cast<const float4 *>(y)[kr_v];
    {
      float t = a * kr_x.x;
      kr_y.x = t + kr_y.x;
    }
    {
      float t = a * kr_x.y;
      kr_y.y = t + kr_y.y;
    }
    {
      float t = a * kr_x.z;
      kr_y.z = t + kr_y.z;
    }
    {
      float t = a * kr_x.w;
      kr_y.w = t + kr_y.w;
    }
    reinterpret_cast<float4 *>(y)[kr_v] = kr_y;
  }
  for (int kr_e = kr_nv * 4 + i; kr_e < (n); kr_e += gridDim.x * blockDim.x) {
    const int i = kr_e;
    float t = a * x[i];
    y[i] = t + y[i];
  }
}
