// A warp shuffle inside the element's statements would see each thread handle several elements.
__global__ void smooth(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float w = __shfl_down_sync(0xffffffffu, v, 1);
  y[i] = 0.5f * (v + w);
}
