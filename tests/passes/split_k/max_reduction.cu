// The largest product of a row of A and a column of B: the parts combine with fmaxf, starting
// from -INFINITY.
__global__ void maxprod(const float *A, const float *B, float *C, int M, int N, int K) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M) return;
  if (j >= N) return;
  float best = -1e30f;
  for (int k = 0; k < K; k++) best = fmaxf(best, A[i * K + k] * B[k * N + j]);
  C[i * N + j] = best;
}
