// tests/planted/rowsum_unrolled_correct.cu (correct; specs/rowsum): four columns an iteration and
// a tail, right at every size (the additions in the original's order).
__global__ void rowsum(int rows, int cols, const float *x, float *out) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *row = x + (long)r * cols;
  float s = 0.0f;
  int j = 0;
  for (; j + 4 <= cols; j += 4) s = s + row[j] + row[j + 1] + row[j + 2] + row[j + 3];
  for (; j < cols; j++) s += row[j];
  out[r] = s;
}
