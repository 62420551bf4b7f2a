// tests/planted/adjacent_correct.cu (correct; specs/adjacent): the neighbour read from global
// memory instead of shared memory, with the same block boundaries; no shared memory, no barrier.
__global__ void adjacent(int n, const float *x, float *out) {
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  if (i < n) out[i] = x[i] + (t > 0 ? x[i - 1] : 0.0f);
}
