// A locally connected layer: like a matrix product, but every output (o, p) has its own weights,
// w[(o * P + p) * C + c]. A tile of w would serve one output only.
#define C_IN 64

__global__ void local_fc(int O, int P, const float *__restrict__ w, const float *__restrict__ x,
                         float *__restrict__ y) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int o = blockIdx.y * blockDim.y + threadIdx.y;
  if (o < O && p < P) {
    float acc = 0.0f;
    for (int c = 0; c < C_IN; ++c)
      acc += w[(o * P + p) * C_IN + c] * x[c * P + p];
    y[o * P + p] = acc;
  }
}
