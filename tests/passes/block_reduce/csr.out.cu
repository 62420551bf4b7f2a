// CSR row sums of |value| (a row loop whose bounds come from memory).
__global__ void __launch_bounds__(256) csr_abs(const int *rp, const float *val, float *out, int m) {
  // krewrite block_reduce: one block of 256 threads per row; each row loop strided over the row's threads
  __shared__ float acc_part[8];
  int r = blockIdx.x;
  int kr_lane = threadIdx.x;
  if (r >= m) return;
  float acc = 0.0f;
  #pragma unroll 4
  for (int e = (rp[r]) + kr_lane; e < rp[r + 1]; e += 256) {
    acc += fabsf(val[e]);
  }
  // the row's threads combined: a shuffle tree in each warp, then the warps' values in a fixed order
  for (int kr_offset = 16; kr_offset > 0; kr_offset /= 2) {
    float acc_other = __shfl_down_sync(0xffffffffu, acc, kr_offset);
    acc = acc + acc_other;
  }
  if (kr_lane % 32 == 0) {
    acc_part[kr_lane / 32] = acc;
  }
  __syncthreads();
  acc = acc_part[0];
  for (int kr_warp = 1; kr_warp < 8; kr_warp++) {
    float acc_other_1 = acc_part[kr_warp];
    acc = acc + acc_other_1;
  }
  if (kr_lane == 0) {
    out[r] = acc;
  }
}
