// Accessors defined through another macro, a call inside an argument, a multi-line definition with
// a comment, an argument holding a comma inside parentheses, and an object-like size left as it is.
#define LD 64
#define IDX(r, c, ld) ((r) * (ld) + (c))
#define AT(p, r, c) p[IDX(r, c, LD)]   /* a row of LD */
#define MAX2(a, b) \
  ((a) > (b) ? (a) : (b))

__global__ void k(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[(i * (LD) + ((0 * 2 + 1)))];
    y[(i * (LD) + 0)] = (v > (fminf(v, (1.0f, 2.0f))) ? v : (fminf(v, (1.0f, 2.0f))));
    y[(((i * 1 + 0)) * (LD) + 1)] = (v > 0.0f ? v : 0.0f);
  }
}
