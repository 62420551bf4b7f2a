// Thread-per-row dot of each row with v (a matvec), warp per row with 128 threads a block.
__global__ void __launch_bounds__(128) matvec2(const float *A, const float *v, float *out, int rows, int cols) {
  // krewrite warp_reduce: one warp per row, 4 rows per block; each row loop strided over the row's threads
  int r = blockIdx.x * 4 + threadIdx.x / 32;
  int kr_lane = threadIdx.x % 32;
  if (r >= rows) return;   // a whole warp: its row is past the last
  float acc = 0.0f;
  // 4 elements a step by 16-byte words from the first element where the row's accesses are 16-byte aligned
  long long kr_vbeg = (long long)(0), kr_vend = kr_vbeg;   // the 16-byte steps: [kr_vbeg, kr_vend)
  {
    const int j = 0;
    const unsigned long long kr_address = (unsigned long long)(const void *)&(A[r * cols + j]);
    const long long kr_head = (long long)((16 - (kr_address & 15)) & 15) / 4;   // elements before a 16-byte boundary
    const unsigned long long kr_address_1 = (unsigned long long)(const void *)&(v[j]);
    if (kr_address % 4 == 0 && kr_address_1 % 4 == 0 && (long long)((16 - (kr_address_1 & 15)) & 15) / 4 == kr_head && (long long)(cols) - kr_vbeg - kr_head >= 128) {
      kr_vbeg += kr_head;
      kr_vend = kr_vbeg + ((long long)(cols) - kr_vbeg) / 4 * 4;
    }
  }
  for (int j = (int)((0) + kr_lane); j < kr_vbeg; j += 32) {
    acc += A[r * cols + j] * v[j];
  }
  #pragma unroll 2
  for (int kr_j0 = (int)(kr_vbeg + kr_lane * 4); kr_j0 < kr_vend; kr_j0 += 128) {
    float kr_A[4];
    float kr_v[4];
    uint4 kr_word;
    {
      const int j = kr_j0;
      kr_word = reinterpret_cast<const uint4 *>(&(A[r * cols + j]))[0];
      memcpy(&kr_A[0], &kr_word, 16);
      kr_word = reinterpret_cast<const uint4 *>(&(v[j]))[0];
      memcpy(&kr_v[0], &kr_word, 16);
    }
    #pragma unroll
    for (int kr_k = 0; kr_k < 4; kr_k++) {
      acc += kr_A[kr_k] * kr_v[kr_k];
    }
  }
  #pragma unroll 4
  for (int j = (int)(kr_vend + kr_lane); j < cols; j += 32) {
    acc += A[r * cols + j] * v[j];
  }
  // the row's threads combined: a shuffle tree in each warp
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float acc_other = __shfl_down_sync(0xffffffffu, acc, kr_offset);
    acc = acc + acc_other;
  }
  acc = __shfl_sync(0xffffffffu, acc, 0);
  if (kr_lane == 0) {
    out[r] = acc;
  }
}
