// C = A^T * B^T in fp32: A is K x M and B is N x K, both read along their rows; the k loop starts at a
// parameter. split_k before double_buffer: schedule passes compose in any order.
__global__ void tt(const float *A, const float *B, float *C, int M, int N, int K, int k_first) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < M && j < N) {
    float acc = 0.0f;
    for (int k = k_first; k < K; k++) acc += A[k * M + i] * B[j * K + k];
    C[i * N + j] = acc;
  }
}
