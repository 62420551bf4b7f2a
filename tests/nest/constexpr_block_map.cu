// expect 0: parallel  i < n  (thread map x, block kThreads, line 4)
constexpr int kThreads = 128;
__global__ void scale(const float *__restrict__ x, float *__restrict__ y, float a, int n) {
  const int i =
      (int)blockIdx.x * kThreads + (int)threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
