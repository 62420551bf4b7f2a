// Width 2 by a recipe parameter; b is read at 2 * i, so it stays scalar while x and y become
// float2 (each copy's i is that component's element index, so b[2 * i] is still right).
__global__ void mix(const float *x, const float *b, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float t = x[i] * b[2 * i];
    y[i] = t > 0.0f ? t : 0.0f;
  }
}
