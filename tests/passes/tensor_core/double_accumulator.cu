// A float product summed in double for accuracy: the tensor cores accumulate in float, which would
// silently drop the extra precision this kernel asks for.
__global__ void sgemm_dacc(int m, int n, int k, const float *a, const float *b, float *c) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < m) {
    double acc = 0.0;
    for (int p = 0; p < k; p++) acc += a[y * k + p] * b[p * n + x];
    c[y * n + x] = (float)acc;
  }
}
