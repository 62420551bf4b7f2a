// The grid-stride loop shape: locals per element, a helper call, and a conditional store (mask
// is loaded first so that elements the condition skips keep their values).
__device__ float gelu(float v) { return 0.5f * v * (1.0f + tanhf(0.79788456f * v)); }

__global__ void act(const float *__restrict__ x, float *__restrict__ y, float *mask, size_t n,
                    float t) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = gelu(x[i]);
    y[i] = v;
    if (v > t) mask[i] = 1.0f;
  }
}
