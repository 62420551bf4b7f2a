// A column sum: thread c walks column c; neighbouring threads read neighbouring addresses.
__global__ void __launch_bounds__(32) colsum2(const float *A, float *out, int M, int N) {
  // krewrite block_reduce: one block of 32 threads per row; each row loop strided over the row's threads
  int c = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (c >= N) return;
  float acc = 0.0f;
  #pragma unroll 4
  for (int i = kr_lane; i < M; i += 32) {
    acc += A[i * N + c];
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float acc_other = __shfl_down_sync(0xffffffffu, acc, kr_offset);
    acc = acc + acc_other;
  }
  acc = __shfl_sync(0xffffffffu, acc, 0);
  if (kr_lane == 0) {
    out[c] = acc;
  }
}
