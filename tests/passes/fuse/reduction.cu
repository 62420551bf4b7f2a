__global__ void produce(int n, float *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = 2.0f * i;
}

__global__ void row_sum(int rows, int cols, const float *t, float *s) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int c = 0; c < cols; c++) acc += t[r * cols + c];
    s[r] = acc;
  }
}
