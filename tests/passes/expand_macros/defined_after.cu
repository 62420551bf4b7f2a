// IDX is defined after the kernel: in the kernel it names the device function.
__device__ int IDX(int r, int c) { return r * 64 + c; }
__global__ void k(float *x) { x[IDX(threadIdx.y, threadIdx.x)] = 0.0f; }
#define IDX(r, c) ((r) * 64 + (c))
