// A matrix product whose thread map fixes the block size with a #define (blockIdx * TILE +
// threadIdx), B stored transposed and the sizes compile-time constants too.
#define TILE 16
#define M_ROWS 200
#define N_COLS 72
#define K_DEPTH 37

__global__ void mm_bt(const float *A, const float *Bt, float *C) {
  int r = blockIdx.y * TILE + threadIdx.y;
  int c = blockIdx.x * TILE + threadIdx.x;
  if (r >= M_ROWS || c >= N_COLS) return;
  float sum = 0.0f;
  for (int k = 0; k < K_DEPTH; k++) sum += A[r * K_DEPTH + k] * Bt[c * K_DEPTH + k];
  C[r * N_COLS + c] = sum;
}
