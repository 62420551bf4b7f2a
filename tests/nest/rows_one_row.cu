// expect 0: kernel dot_all: row nest (one row, walked by every block alike, reduced through shared memory)
// No row index: one block strides over the whole vector and reduces through shared memory, a nest
// of one row; a local already has the name the lift would take, so the row gets another.
__global__ void dot_all(const float *a, const float *b, float *out, int n) {
  __shared__ float part[128];
  unsigned kr_row = threadIdx.x;
  float acc = 0.0f;
  for (int i = kr_row; i < n; i += blockDim.x) acc += a[i] * b[i];
  part[kr_row] = acc;
  __syncthreads();
  for (int s = 64; s > 0; s >>= 1) {
    if (kr_row < s) part[kr_row] += part[kr_row + s];
    __syncthreads();
  }
  if (kr_row == 0) out[0] = part[0];
}
