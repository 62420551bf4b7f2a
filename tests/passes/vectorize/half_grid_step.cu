// A grid-stride loop that steps by half the grid (each thread takes two strided elements per
// sweep): vectorize's loop shape steps by exactly blockDim.x * gridDim.x.
#define UNROLL 2

__global__ void relu_half_grid(float *v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x / UNROLL)
    v[i] = v[i] > 0.0f ? v[i] : 0.0f;
}
