// No function-like macro is called: nothing to write out.
#define N 64
__global__ void k(float *x) { x[threadIdx.x] = N; }
