// expect 1: calls function 'scaled' of this file, which the nest cannot move: it calls 'times', and it calls '__syncthreads'
// A helper that hides a barrier (two calls deep): the schedule would run it under a guard some threads skip.
__device__ float times(float a, float b) { __syncthreads(); return a * b; }
__device__ float scaled(float a, float b) { return times(a, b) * 1.0f; }
__global__ void mm(const float *A, const float *B, float *C, int M, int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float s = 0.0f;
    for (int k = 0; k < K; ++k) s += scaled(A[row * K + k], B[k * N + col]);
    C[row * N + col] = s;
  }
}
