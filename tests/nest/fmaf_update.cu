// expect 0: update    acc = fmaf(A[i * K + k], B[k * N + j], acc)
// A fused multiply-add into the accumulator is a sum of products, as acc += A * B is.
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M && j < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc = fmaf(A[i * K + k], B[k * N + j], acc);
    C[i * N + j] = acc;
  }
}
