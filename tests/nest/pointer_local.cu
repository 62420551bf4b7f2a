// expect 1: declares a pointer local (inline_pointers writes its uses as indices
// A pointer local offset into a parameter: the nest reads subscripts of the parameters only, and
// names the pass that writes the uses so.
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    const float *a = A + row * K;
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += a[k] * B[k * N + col];
    C[row * N + col] = s;
  }
}
