// A build switch inside the element's statements: the copies per vector component would each
// need the #if, and vectorize does not split preprocessor lines.
__global__ void bias_act(const float *x, const float *b, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] + b[i];
#if defined(USE_RELU)
    v = fmaxf(v, 0.0f);
#endif
    y[i] = v;
  }
}
