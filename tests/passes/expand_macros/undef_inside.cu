#define IDX(r, c) ((r) * 64 + (c))
__global__ void k(float *x) {
  x[IDX(threadIdx.y, threadIdx.x)] = 0.0f;
#undef IDX
}
