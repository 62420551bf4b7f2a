// Element types spelled through the file's aliases: a #define, a typedef, a using and a chain of
// them, inside a namespace too. Each resolves to a type __ldg has an overload for.
#define real_t float
typedef double dreal;
typedef unsigned int count_t;
using vec_t = float4;
namespace cfg { typedef real_t weight_t; }
using cfg::weight_t;
__global__ void mix(const real_t *a, const dreal *b, const count_t *c, const vec_t *d, const weight_t *w,
                    float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + (float)b[i] + (float)c[i] + d[i].x + w[i];
}
