// Assigned in each branch of an if and an else-if chain, read there only.
__global__ void pick(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (x[i] > 0.0f) {
    float v = x[i];
    y[i] = v;
  } else if (x[i] < -1.0f) {
    float v = -1.0f;
    y[i] = v;
  } else {
    y[i] = 0.0f;
  }
}
