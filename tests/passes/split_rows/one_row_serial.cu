// No row index and a loop every thread walks from 0: not one row walked by the block (each thread
// sums the whole vector), so there is no row nest to split.
__global__ void total(const float *v, float *out, int n) {
  float s = 0.0f;
  for (int k = 0; k < n; k++) s += v[k];
  if (threadIdx.x == 0) out[0] = s;
}
