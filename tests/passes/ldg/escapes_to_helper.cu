// The address of an element escapes to a helper that is only declared here (compiled with
// -rdc elsewhere): the analysis cannot know whether it writes.
__device__ void consume(float *p);

__global__ void k(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) consume(&x[i]);
}
