// One block walks the whole vector (no row index): the largest |v[k]| through an fmaxf tree; the
// block size and the vector's length come from #defines.
#define THREADS 256
#define LEN (1 << 20)
__global__ void absmax(const float *v, float *result) {
  __shared__ float red[THREADS];
  int t = threadIdx.x;
  float best = 0.0f;
  for (int k = t; k < LEN; k += blockDim.x) best = fmaxf(best, fabsf(v[k]));
  red[t] = best;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (t < h) red[t] = fmaxf(red[t], red[t + h]);
    __syncthreads();
  }
  if (t == 0) *result = red[0];
}
