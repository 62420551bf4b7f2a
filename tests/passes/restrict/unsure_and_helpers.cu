// a is converted to an integer for an alignment test, which the analysis cannot follow: it gets
// __restrict__ only. b is only read, by a helper taking const float *: it also gets const.
// dst is written through a helper defined here: __restrict__ only.
__device__ void put(float *p, int i, float v) { p[i] = v; }
__device__ float get(const float *p, int i) { return p[i]; }

__global__ void copy_via(float *a, float *b, float *dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool aligned = ((unsigned long long)a & 15) == 0;
  if (i < n) put(dst, i, (aligned ? a[i] : 0.0f) + get(b, i));
}
