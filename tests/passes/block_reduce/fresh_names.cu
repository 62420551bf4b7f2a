// Names the emitter would use (s_part, s_other, kr_lane) already taken by the kernel.
__global__ void clash(const float *s_part, float *s_other, int rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    int kr_lane = 3;
    float s = 0.0f;
    for (int j = 0; j < cols; j++) s += s_part[row * cols + j] * kr_lane;
    s_other[row] = s;
  }
}
