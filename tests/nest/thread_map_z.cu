// expect 0: parallel  z < Z  (thread map z, block blockDim.z
// With threadIdx.z in the kernel, blockIdx.z belongs to the z thread map: a third parallel axis, no batch.
__global__ void add3(int X, int Y, int Z, const float *a, float *o) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < X && y < Y && z < Z) o[(z * Y + y) * X + x] = 2.0f * a[(z * Y + y) * X + x];
}
