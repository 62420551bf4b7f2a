// tensor_core golden: a max of products is no sum for the tensor cores.
__global__ void maxprod(int M, int N, int K, const float *A, const float *B, float *C) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float best = -INFINITY;
    for (int k = 0; k < K; k++) best = fmaxf(best, A[row * K + k] * B[k * N + col]);
    C[row * N + col] = best;
  }
}
