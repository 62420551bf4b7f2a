// expect 1: the accumulator 'acc' appears inside its own update 'acc = fmaf(acc, B[k * N + j], acc)
// The accumulator as a factor of the product is not a sum of products.
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    float acc = A[i];
    for (int k = 0; k < K; k++) acc = fmaf(acc, B[k * N + j], acc);
    C[i * N + j] = acc;
  }
}
