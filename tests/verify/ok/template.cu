// tests/verify/ok/template.cu: pointer parameters whose pointee the spec check cannot or need not
// resolve (a template parameter, void *, a typedef), for template.lua: these must be accepted.
typedef float real;

template <typename T>
__global__ void scale_t(int n, const T *__restrict__ x, volatile real *y, void *scratch) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
  (void)scratch;
}
