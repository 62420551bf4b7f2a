// A batched matrix product: both operands change with the batch b.
__global__ void bmm(int B, int M, int N, int K, const float *a, const float *b, float *c) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < B * M * N) {
    int j = idx % N;
    int i = (idx / N) % M;
    int t = idx / (N * M);
    float sum = 0.0f;
    for (int k = 0; k < K; k++) sum += a[(t * M + i) * K + k] * b[(t * K + k) * N + j];
    c[idx] = sum;
  }
}
