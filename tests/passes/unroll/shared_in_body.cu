// A block-wide staging buffer declared inside the stage loop: each copy of the body would declare
// a separate __shared__ array (three times the shared memory, and no longer one buffer).
#define STAGES 3

__global__ void staged_sum(const float *x, float *y, int n) {
  float acc = 0.0f;
  for (int s = 0; s < STAGES; s++) {
    __shared__ float buf[256];
    buf[threadIdx.x] = x[(s * gridDim.x + blockIdx.x) * 256 + threadIdx.x];
    __syncthreads();
    acc += buf[255 - threadIdx.x];
    __syncthreads();
  }
  y[blockIdx.x * 256 + threadIdx.x] = acc;
}
