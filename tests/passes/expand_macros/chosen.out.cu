// Only the macros named: IDX is written out, CLAMP stays a call.
#define IDX(r, c, ld) ((r) * (ld) + (c))
#define CLAMP(v) ((v) < 0.0f ? 0.0f : (v))

__global__ void k(const float *x, float *y, int rows, int cols) {
  int r = blockIdx.y, c = threadIdx.x;
  if (r < rows && c < cols) y[(r * cols + c)] = CLAMP(x[(r * cols + c)]);
}
