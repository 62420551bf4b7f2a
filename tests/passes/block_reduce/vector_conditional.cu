// A thread-per-row masked dot product: x and keep are read for every element, so they move by
// 16-byte words; w is read only where keep[j] holds (a load the original makes under a condition
// might be out of bounds), so it stays one element at a time; the map's store `z[...] = ...` is
// the array's only store and moves by words too, while `hits` (stored under the condition) does not.
__global__ void masked_dot(const float *x, const int *keep, const float *w, float *z, int *hits,
                           float *out, int rows, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float acc = 0.0f;
    for (int j = 0; j < n; j++) {
      float v = x[row * n + j];
      acc += keep[j] != 0 ? v * w[row * n + j] : 0.0f;
    }
    out[row] = acc;
    for (int j = 0; j < n; j++) {
      z[row * n + j] = x[row * n + j] * acc;
      if (keep[j] > 1) hits[row * n + j] = 1;
    }
  }
}
