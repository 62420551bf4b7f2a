// tests/planted/device_global_cache.cu (class 6; examples/vector_add): remembers each result in a
// __device__ array and replays it when called again, so a second call on fresh inputs returns
// the first call's outputs. (Each thread reads only the entries it wrote itself: no race.)
__device__ float cache[8192];
__device__ bool valid[8192];

__global__ void vector_add(int n, float a, float *x, float *y, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    if (i < 8192 && valid[i]) {
      out[i] = cache[i];
      continue;
    }
    out[i] = a * x[i] + y[i];
    if (i < 8192) cache[i] = out[i], valid[i] = true;
  }
}
