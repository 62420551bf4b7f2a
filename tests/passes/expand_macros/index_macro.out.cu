// An index macro with its leading dimension as a parameter, in loads and in the store.
#define IDX(r, c, ld) ((r) * (ld) + (c))

__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += A[(row * K + k)] * B[(k * N + col)];
    C[(row * N + col)] = s;
  }
}

// The host code keeps its own use of the macro.
int host_index(int r, int c) { return IDX(r, c, 8); }
