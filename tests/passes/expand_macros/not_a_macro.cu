#define N 64
#define IDX(r, c) ((r) * N + (c))
__global__ void k(float *x) { x[IDX(threadIdx.y, threadIdx.x)] = 0.0f; }
