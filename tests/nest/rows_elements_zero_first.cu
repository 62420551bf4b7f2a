// expect 1: rows_elements_zero_first.cu:7:3: note: kernel 'zero_then_load' is not a row reduction: 'buf[tid] = 0.0f
// One element a thread, written as a zero and then a guarded load: refused, with the form it reads.
__global__ void zero_then_load(const float *x, float *out, int n) {
  __shared__ float buf[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  buf[tid] = 0.0f;
  if (i < n) buf[tid] = x[i];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) buf[tid] += buf[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = buf[0];
}
