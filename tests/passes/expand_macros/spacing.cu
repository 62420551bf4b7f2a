// The expansion means what the compiler reads: no parentheses added (1 / SQ(a + 1) is 1 / a + 1 * a + 1),
// and a space where two pieces would join into another token (a - NEG(b) is a - -b, not a --b).
#define NEG(x) -x
#define SQ(x) x * x
#define TWICE(x) NEG(NEG(x))

__global__ void k(float *y, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a-NEG(b) + 1 / SQ(a + 1);
    y[i] += TWICE(a) * 0.5f;
  }
}
