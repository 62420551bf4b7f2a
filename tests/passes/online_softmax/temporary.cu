// The max loop loads each logit into a temporary before taking the maximum: online_softmax needs
// the value written inline in both loops to see that they read the same element.
__global__ void softmax_denom(const float *__restrict__ logits, float *__restrict__ denom, int rows, int vocab) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float m = -INFINITY;
  for (int v = 0; v < vocab; ++v) {
    float z = logits[row * vocab + v];
    m = fmaxf(m, z);
  }
  float s = 0.0f;
  for (int v = 0; v < vocab; ++v) s += __expf(logits[row * vocab + v] - m);
  denom[row] = s;
}
