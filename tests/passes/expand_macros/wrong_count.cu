#define IDX(r, c, ld) ((r) * (ld) + (c))
__global__ void k(float *x, int n) { x[IDX(threadIdx.x, n)] = 0.0f; }
