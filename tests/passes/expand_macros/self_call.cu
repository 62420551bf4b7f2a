// The compiler expands f once (f(x) -> f(x + 1), where it stops); a copy of the text would expand again.
#define f(x) f(x + 1)
__device__ float f(float v) { return v; }
__global__ void k(float *x) { x[threadIdx.x] = f(x[threadIdx.x]); }
