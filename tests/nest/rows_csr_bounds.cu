// expect 0: row loop  e in [rp[r], rp[r + 1])
// CSR row sums of |value| (a row loop whose bounds come from memory).
__global__ void csr_abs(const int *rp, const float *val, float *out, int m) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m) {
    float acc = 0.0f;
    for (int e = rp[r]; e < rp[r + 1]; e++) {
      acc += fabsf(val[e]);
    }
    out[r] = acc;
  }
}
