// The kernel and the file already use the names the emitter would choose (BM, acc, tid, k0):
// the emitted ones must differ.
#define BM 7
__global__ void mm(const float *A, const float *B, float *C, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = blockIdx.y * blockDim.y + threadIdx.y;
  if (acc < n && tid < n) {
    float k0 = 0.0f;
    for (int k = 0; k < n; k++) k0 += A[acc * n + k] * B[k * n + tid] * BM;
    C[acc * n + tid] = k0;
  }
}
