#define AT(p, i) p##_data[i]
__global__ void k(float *x_data, int n) {
  int i = threadIdx.x;
  if (i < n) AT(x, i) = 0.0f;
}
