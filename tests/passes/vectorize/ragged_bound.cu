// Each block copies its own segment of a ragged batch: the bound depends on blockIdx, so a thread
// handling four consecutive elements could straddle two segments' bounds.
__global__ void copy_segments(const float *src, float *dst, const int *seg_end) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < seg_end[blockIdx.x]) dst[i] = src[i];
}
