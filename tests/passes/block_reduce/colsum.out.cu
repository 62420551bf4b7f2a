// A column sum: thread c walks column c; neighbouring threads read neighbouring addresses.
__global__ void __launch_bounds__(256) colsum2(const float *A, float *out, int M, int N) {
  // krewrite block_reduce: 32 rows per block on threadIdx.x, each row's elements over 8 threads on threadIdx.y; each row loop strided over the row's threads
  __shared__ float acc_part[8][32];
  int c = blockIdx.x * 32 + threadIdx.x;
  int kr_lane = threadIdx.y;
  const bool kr_live = c < N;
  if (N <= 0) return;
  if (!kr_live) c = N - 1;   // past the last row: recompute the last one, store nothing
  float acc = 0.0f;
  #pragma unroll 4
  for (int i = kr_lane; i < M; i += 8) {
    acc += A[i * N + c];
  }
  // the row's threads (threadIdx.y) combined in a fixed order
  acc_part[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  acc = acc_part[0][threadIdx.x];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float acc_other = acc_part[kr_warp][threadIdx.x];
    acc = acc + acc_other;
  }
  if (kr_live && threadIdx.y == 0) {
    out[c] = acc;
  }
}
