// The element type is a template parameter, and every launch in the file instantiates it with a
// type __ldg has: the loads are rewritten, with the instantiations recorded as an assumption.
template <typename T, int BLOCK>
__global__ void scale(const T *in, T *out, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = in[i] * (T)2;
}
void run(const float *x, float *y, const double *dx, double *dy, int n) {
  scale<float, 128><<<(n + 127) / 128, 128>>>(x, y, n);
  scale<double, 256><<<(n + 255) / 256, 256>>>(dx, dy, n);
}
