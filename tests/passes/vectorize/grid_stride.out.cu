// The grid-stride loop shape: locals per element, a helper call, and a conditional store (mask
// is loaded first so that elements the condition skips keep their values).
__device__ float gelu(float v) { return 0.5f * v * (1.0f + tanhf(0.79788456f * v)); }

__global__ void act(const float *__restrict__ x, float *__restrict__ y, float *mask, size_t n,
                    float t) {
  // vectorize: whole vectors only when x, y and mask are 16-byte aligned (x + 1 is not)
  const bool kr_aligned = (reinterpret_cast<unsigned long long>(x) | reinterpret_cast<unsigned long long>(y) | reinterpret_cast<unsigned long long>(mask)) % 16 == 0;
  const size_t kr_nv = kr_aligned ? (n) / 4 : 0;
  for (size_t kr_v = blockIdx.x * blockDim.x + threadIdx.x; kr_v < kr_nv; kr_v += blockDim.x * gridDim.x) {
    const float4 kr_x = reinterpret_cast<const float4 *>(x)[kr_v];
    float4 kr_y;
    float4 kr_mask = reinterpret_cast<const float4 *>(mask)[kr_v];
    {
      float v = gelu(kr_x.x);
      kr_y.x = v;
      if (v > t) kr_mask.x = 1.0f;
    }
    {
      float v = gelu(kr_x.y);
      kr_y.y = v;
      if (v > t) kr_mask.y = 1.0f;
    }
    {
      float v = gelu(kr_x.z);
      kr_y.z = v;
      if (v > t) kr_mask.z = 1.0f;
    }
    {
      float v = gelu(kr_x.w);
      kr_y.w = v;
      if (v > t) kr_mask.w = 1.0f;
    }
    reinterpret_cast<float4 *>(y)[kr_v] = kr_y;
    reinterpret_cast<float4 *>(mask)[kr_v] = kr_mask;
  }
  for (size_t i = kr_nv * 4 + (blockIdx.x * blockDim.x + threadIdx.x); i < n; i += blockDim.x * gridDim.x) {
    float v = gelu(x[i]);
    y[i] = v;
    if (v > t) mask[i] = 1.0f;
  }
}
