// A copy that stops at the first sentinel of its element: `return` inside the element's statements
// would end the thread's other vector components too.
#define SENTINEL (-1)

__global__ void copy_until(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = in[i];
    if (v == SENTINEL) return;
    out[i] = v;
  }
}
