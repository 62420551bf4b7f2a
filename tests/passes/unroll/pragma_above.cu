// A loop under a compiler hint the copies would lose (or would each need again).
__global__ void taps3(const float *__restrict__ x, const float *__restrict__ h, float *__restrict__ y, int n) {
  int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n) {
    float s = 0.f;
#pragma GCC ivdep
    for (int t = 0; t < 3; t++) s += h[t] * x[i + t];
    y[i] = s;
  }
}
