// A macro that names a row: `((p) + (size_t)(r) * n)` with p = x would read, to the parser, as a cast
// of `+(size_t)(r)` to a type x; a lone value's grouping parentheses are dropped, so inline_pointers
// can follow. The cast's parentheses stay.
#define ROW(p, r) ((p) + (size_t)(r) * n)
__global__ void row_sum(const float *x, float *out, int rows, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *xr = ROW(x, r);
  float s = 0.0f;
  for (int j = 0; j < n; ++j) s += xr[j];
  out[r] = s;
}
