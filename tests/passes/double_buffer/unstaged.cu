// y = W x for a batch of vectors: one thread per output, both operands read from global memory.
#define HID 512

__global__ void batched_gemv(const float *W, const float *X, float *Y, int batch) {
  const int o = blockIdx.x * blockDim.x + threadIdx.x;
  const int b = blockIdx.y * blockDim.y + threadIdx.y;
  if (o < HID && b < batch) {
    float acc = 0.f;
    for (int h = 0; h < HID; h++) acc += X[b * HID + h] * W[h * HID + o];
    Y[b * HID + o] = acc;
  }
}
