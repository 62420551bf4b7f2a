// hist is only touched through atomicAdd, which reads and writes.
__global__ void histogram(const int *data, unsigned *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[data[i] & 255], 1u);
}
